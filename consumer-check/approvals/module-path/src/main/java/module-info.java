/**
 * The consumer's code as a named module, with the inbox and its JDBC store on H2. The inbox is an automatic module,
 * which names no dependencies: the client's own module, whose types the code uses, is required as well.
 */
module com.example.codexclient.consumer.approvals {
    requires dev.codexclient.approvals;
    requires dev.codexclient.core;
    requires java.sql;
}
