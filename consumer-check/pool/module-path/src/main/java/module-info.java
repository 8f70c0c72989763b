/** The consumer's code as a named module: it reads the pool's module, and through it the core's. */
module com.example.codexclient.consumer.pool {
    requires dev.codexclient.pool;
}
