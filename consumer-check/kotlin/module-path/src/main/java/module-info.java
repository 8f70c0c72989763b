/**
 * The consumer's Kotlin code as a named module. Jackson, through Kotlin's reflection, binds its data classes (tool
 * arguments, structured output), so the module is open, as a Kotlin application using Jackson on the module path is.
 */
open module com.example.codexclient.consumer.kotlin {
    requires dev.codexclient.kotlin;
    requires dev.codexclient.core;
    requires kotlin.stdlib;
    requires kotlinx.coroutines.core;
}
