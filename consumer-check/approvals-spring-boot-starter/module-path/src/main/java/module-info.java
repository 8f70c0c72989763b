/**
 * The application as a named module, open to Spring. The inbox's starter is an automatic module, which names no
 * dependencies: the modules the application's code uses are required as well.
 */
module com.example.codexclient.consumer.inbox {
    requires dev.codexclient.approvals.spring;
    requires dev.codexclient.approvals;
    requires dev.codexclient.core;
    requires spring.boot;
    requires spring.boot.autoconfigure;
    requires spring.context;
    requires spring.beans;

    opens com.example.codexclient.consumer.inbox;
}
