/**
 * The application as a named module. LangChain4j implements the AI service interface with a proxy and calls the
 * application's @Tool methods reflectively, so the package is open. The bridge and LangChain4j are automatic modules,
 * which name no dependencies: the client's module is required as well.
 */
module com.example.codexclient.consumer.langchain4j {
    requires dev.codexclient.langchain4j;
    requires dev.codexclient.core;
    requires langchain4j;
    requires langchain4j.core;

    opens com.example.codexclient.consumer.langchain4j;
}
