/**
 * Threads over several codex app-servers, with the client's face: a {@code CodexPool} is a {@code dev.codexclient.Codex}
 * and its threads are {@code CodexThread}s. Built on the exported packages of {@code dev.codexclient.core} only, as a
 * user's code is; its engine ({@code dev.codexclient.pool.internal}) is not exported.
 */
module dev.codexclient.pool {
    requires transitive dev.codexclient.core;
    requires org.slf4j;
    // JNDI, for the SRV lookups of MemberResolver.srv; the DNS provider (jdk.naming.dns) is bound as its service when
    // present.
    requires java.naming;

    exports dev.codexclient.pool;
}
