/**
 * Test support for codex integrations: a scripted model for driving the real codex offline, and helpers to find
 * or install a codex binary.
 */
module dev.codexclient.testkit {
    requires transitive dev.codexclient.core;
    requires jdk.httpserver;
    requires static org.junit.jupiter.api;

    exports dev.codexclient.testkit;
}
