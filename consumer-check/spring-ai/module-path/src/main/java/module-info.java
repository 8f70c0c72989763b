/**
 * The application as a named module. Spring AI calls the application's @Tool methods reflectively, so the package is
 * open. The bridge and Spring AI are automatic modules, which name no dependencies: the client's module is required
 * as well.
 */
module com.example.codexclient.consumer.springai {
    requires dev.codexclient.spring.ai;
    requires dev.codexclient.core;
    requires spring.ai.client.chat;
    requires spring.ai.model;

    opens com.example.codexclient.consumer.springai;
}
