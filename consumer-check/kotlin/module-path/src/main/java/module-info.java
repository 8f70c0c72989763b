/**
 * The consumer's Kotlin code as a named module. Jackson and Kotlin's reflection bind its data classes (tool
 * arguments, structured output), so the package is open to them, as a Kotlin application on the module path does.
 */
module com.example.codexclient.consumer.kotlin {
    requires dev.codexclient.kotlin;
    requires dev.codexclient.core;
    requires kotlin.stdlib;
    requires kotlinx.coroutines.core;

    opens com.example.codexclient.consumer.kotlin to com.fasterxml.jackson.databind, kotlin.reflect;
}
