/**
 * The codex-client testkit: a scriptable fake codex app-server, wire recording and replay, and a JUnit 5
 * extension.
 */
module dev.codexclient.testkit {
    requires transitive dev.codexclient.core;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;
    requires static org.junit.jupiter.api;

    exports dev.codexclient.testkit;
}
