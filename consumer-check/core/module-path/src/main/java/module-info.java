/** The consumer's code as a named module: it needs nothing of codex-client but what core exports. */
module com.example.codexclient.consumer {
    requires dev.codexclient.core;
}
