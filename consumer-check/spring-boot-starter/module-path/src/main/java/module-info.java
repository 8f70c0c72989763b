/**
 * The application as a named module. Spring reads its configuration and beans reflectively, so the package is open
 * to it, as a Spring application's must be on the module path.
 */
module com.example.codexclient.consumer.spring {
    requires dev.codexclient.spring.boot;
    // The starter is an automatic module, which names no dependencies: the client's own module is required as well.
    requires dev.codexclient.core;
    requires spring.boot;
    requires spring.boot.autoconfigure;
    requires spring.context;
    requires spring.beans;

    opens com.example.codexclient.consumer.spring;
}
