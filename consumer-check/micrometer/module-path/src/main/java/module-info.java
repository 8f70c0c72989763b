/** The consumer's code as a named module, with Micrometer's meters (an optional part of the listener). */
module com.example.codexclient.consumer.micrometer {
    requires dev.codexclient.micrometer;
    requires micrometer.core;
}
