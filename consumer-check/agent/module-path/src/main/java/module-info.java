/**
 * The consumer's code as a named module. The run's structured output is read into the consumer's record by Jackson,
 * so the package is open to it, as an application's must be.
 */
module com.example.codexclient.consumer.agent {
    requires dev.codexclient.agent;

    opens com.example.codexclient.consumer.agent to com.fasterxml.jackson.databind;
}
