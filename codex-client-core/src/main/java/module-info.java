/**
 * The codex-client core: transports, the JSON-RPC dispatcher and the client API.
 */
module dev.codexclient.core {
    requires transitive dev.codexclient.protocol;
    requires org.slf4j;
    requires java.net.http;
    // JNDI, for the pool's SRV lookups; the DNS provider (jdk.naming.dns) is bound as its service when present.
    requires java.naming;

    exports dev.codexclient;
    exports dev.codexclient.conversation;
    exports dev.codexclient.errors;
    exports dev.codexclient.telemetry;
    exports dev.codexclient.pool;
    exports dev.codexclient.transport;
    // The one internal package another module reads: the testkit checks leftover threads against the shared ceilings.
    exports dev.codexclient.internal to dev.codexclient.testkit;
}
