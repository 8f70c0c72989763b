/**
 * Test support for codex integrations: a scriptable fake app-server (in memory or as a child process), wire
 * recording and replay, a JUnit 5 extension, a scripted model for driving the real codex offline, and helpers to
 * find or install a codex binary.
 */
module dev.codexclient.testkit {
    requires transitive dev.codexclient.core;
    requires jdk.httpserver;
    requires org.slf4j;
    requires static org.junit.jupiter.api;

    exports dev.codexclient.testkit;
}
