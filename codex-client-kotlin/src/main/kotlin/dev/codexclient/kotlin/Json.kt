package dev.codexclient.kotlin

import com.fasterxml.jackson.databind.DeserializationFeature
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.module.kotlin.KotlinModule
import com.fasterxml.jackson.module.kotlin.registerKotlinModule
import java.util.Collections
import java.util.WeakHashMap

/**
 * The JSON mapping of Kotlin types: data classes, nullable and default parameters (jackson-module-kotlin).
 *
 * [kotlinMapper] is what the Kotlin DSL gives a client as its mapper of the user's types
 * ([dev.codexclient.CodexClientBuilder.objectMapper]), configured as the client's own default is: unknown properties
 * are ignored, since a model may add some.
 */
public object CodexJson {
    /** A mapper that binds Kotlin classes, leniently: unknown properties are ignored. */
    public val kotlinMapper: ObjectMapper = ObjectMapper()
        .registerKotlinModule()
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)

    // A mapper without the Kotlin module, given by a client built from Java, gets a copy that has it: once per mapper,
    // and without keeping a client's mapper alive after the client.
    private val kotlinCopies: MutableMap<ObjectMapper, ObjectMapper> = Collections.synchronizedMap(WeakHashMap())

    /**
     * [mapper] if it binds Kotlin classes, else a copy of it that does: its configuration, with the Kotlin module.
     * A client configured from Java hands its tools a mapper without the module; Kotlin tools use this.
     */
    public fun kotlinAware(mapper: ObjectMapper): ObjectMapper =
        if (mapper.registeredModuleIds.contains(KotlinModule::class.java.name)) {
            mapper
        } else {
            kotlinCopies.getOrPut(mapper) { mapper.copy().registerKotlinModule() }
        }
}
