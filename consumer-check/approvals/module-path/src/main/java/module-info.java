/** The consumer's code as a named module, with the inbox and its JDBC store on H2. */
module com.example.codexclient.consumer.approvals {
    requires dev.codexclient.approvals;
    requires java.sql;
}
