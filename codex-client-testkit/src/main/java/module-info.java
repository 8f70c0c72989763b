/**
 * Test support for codex integrations: a scriptable fake app-server (in memory or as a child process), wire
 * recording and replay, a JUnit 5 extension, a scripted model for driving the real codex offline, and helpers to
 * find or install a codex binary.
 */
module dev.codexclient.testkit {
    requires transitive dev.codexclient.core;
    requires jdk.httpserver;
    requires org.slf4j;
    // CodexTestExtension is a JUnit 5 extension: its public API names JUnit types, so a test module that uses the
    // testkit reads JUnit's API too.
    requires transitive org.junit.jupiter.api;
    // The real-codex test report (an internal launcher listener this project's builds register) needs the launcher,
    // which only a test run has.
    requires static org.junit.platform.launcher;

    exports dev.codexclient.testkit;
}
