/** The consumer's code as a named module: the generated types and Jackson, which the protocol module brings. */
module com.example.codexclient.consumer.protocol {
    requires dev.codexclient.protocol;
}
