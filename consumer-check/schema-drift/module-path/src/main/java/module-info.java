/** The consumer's code as a named module: the drift report's entry point, and Jackson to edit a schema. */
module com.example.codexclient.consumer.drift {
    requires dev.codexclient.drift;
    requires com.fasterxml.jackson.databind;
}
