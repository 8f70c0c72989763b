package dev.codexclient.kotlin

import com.fasterxml.jackson.annotation.JsonProperty
import com.fasterxml.jackson.annotation.JsonPropertyDescription
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.codexclient.DynamicTool
import dev.codexclient.ToolResult
import java.math.BigDecimal
import java.math.BigInteger
import kotlin.reflect.KClass
import kotlin.reflect.KType
import kotlin.reflect.KTypeParameter
import kotlin.reflect.KTypeProjection
import kotlin.reflect.full.findAnnotation
import kotlin.reflect.full.isSubclassOf
import kotlin.reflect.full.memberProperties
import kotlin.reflect.full.primaryConstructor
import kotlin.reflect.typeOf

/**
 * Derives the JSON schema of a Kotlin type, for a dynamic tool's arguments and a turn's structured output: what the
 * core derives from a Java record, for Kotlin's data classes.
 *
 * The schema is written for the model provider's strict mode, as the core's is: every constructor parameter of a
 * class is listed in `required` and `additionalProperties` is false; a nullable type (`String?`) becomes
 * `anyOf [X, null]`, the model then sends `null` for what it leaves out. Supported: classes with a primary
 * constructor (data classes), String, Char, Boolean, the numbers, enums, collections and arrays,
 * `Map<String, X>`, [JsonNode] (any value), and Java records (through the core). A parameter's
 * [JsonProperty] name and [JsonPropertyDescription] are used. Anything else is an [IllegalArgumentException] naming
 * the offending property, raised when the tool or turn is declared, not when the model calls it.
 */
public object KotlinSchemas {
    private val json = JsonNodeFactory.instance

    /** The schema of [T]. */
    public inline fun <reified T> schemaOf(): ObjectNode = schemaOf(typeOf<T>())

    /** The schema of [type]. */
    public fun schemaOf(type: KType): ObjectNode = schema(type, emptyMap(), mutableSetOf(), type.toString())

    private fun schema(type: KType, bindings: Map<KTypeParameter, KTypeProjection>, inProgress: MutableSet<KClass<*>>,
                       path: String): ObjectNode {
        val classifier = type.classifier
        if (classifier is KTypeParameter) {
            val bound = bindings[classifier]?.type
                ?: throw IllegalArgumentException("$path: type parameter ${classifier.name} cannot be described")
            return schema(if (type.isMarkedNullable) nullableOf(bound) else bound, bindings, inProgress, path)
        }
        val inner = nonNullSchema(type, classifier as? KClass<*>
            ?: throw IllegalArgumentException("$path: unsupported type $type"), bindings, inProgress, path)
        return if (type.isMarkedNullable) nullable(inner) else inner
    }

    private fun nonNullSchema(type: KType, c: KClass<*>, bindings: Map<KTypeParameter, KTypeProjection>,
                              inProgress: MutableSet<KClass<*>>, path: String): ObjectNode {
        fun argument(i: Int): KType = type.arguments.getOrNull(i)?.type?.let { substitute(it, bindings) }
            ?: throw IllegalArgumentException("$path: a star projection cannot be described")
        return when {
            c == String::class || c == Char::class -> json.objectNode().put("type", "string")
            c == Boolean::class -> json.objectNode().put("type", "boolean")
            c == Int::class || c == Long::class || c == Short::class || c == Byte::class || c == BigInteger::class ->
                json.objectNode().put("type", "integer")
            c == Double::class || c == Float::class || c == BigDecimal::class -> json.objectNode().put("type", "number")
            c.isSubclassOf(JsonNode::class) -> json.objectNode()
            c.java.isEnum -> json.objectNode().put("type", "string").also { s ->
                val values = s.putArray("enum")
                c.java.enumConstants.forEach { values.add(wireName(it as Enum<*>)) }
            }
            c == IntArray::class || c == LongArray::class || c == ShortArray::class || c == ByteArray::class ->
                array(json.objectNode().put("type", "integer"))
            c == DoubleArray::class || c == FloatArray::class -> array(json.objectNode().put("type", "number"))
            c == BooleanArray::class -> array(json.objectNode().put("type", "boolean"))
            c.java.isArray || c.isSubclassOf(Collection::class) ->
                array(schema(argument(0), bindings, inProgress, "$path[]"))
            c.isSubclassOf(Map::class) -> {
                require(argument(0).classifier == String::class) { "$path: map keys must be String" }
                json.objectNode().put("type", "object").also {
                    it.set<JsonNode>("additionalProperties", schema(argument(1), bindings, inProgress, "$path{}"))
                }
            }
            c.java.isRecord -> recordSchema(c.java)
            else -> classSchema(c, c.typeParameters.indices.associate { i ->
                c.typeParameters[i] to KTypeProjection.invariant(argument(i))
            }, inProgress, path)
        }
    }

    private fun classSchema(c: KClass<*>, bindings: Map<KTypeParameter, KTypeProjection>,
                            inProgress: MutableSet<KClass<*>>, path: String): ObjectNode {
        val constructor = c.primaryConstructor
        require(constructor != null && !c.isAbstract && !c.isSealed && c.java.`package`?.name?.startsWith("java.") != true) {
            "$path: unsupported type ${c.qualifiedName} (use a data class, String, a number, Boolean, an enum, a " +
                "List, a Map<String, *> or a nullable type)"
        }
        require(inProgress.add(c)) {
            "$path: recursive type ${c.qualifiedName} cannot be described by a strict schema"
        }
        val properties = c.memberProperties.associateBy { it.name }
        val s = json.objectNode().put("type", "object")
        val props = s.putObject("properties")
        val required = s.putArray("required")
        for (parameter in constructor.parameters) {
            val name = parameter.name ?: continue
            val property = properties[name]
            val wire = (parameter.findAnnotation<JsonProperty>() ?: property?.findAnnotation<JsonProperty>())
                ?.value?.takeIf { it.isNotEmpty() } ?: name
            val p = schema(parameter.type, bindings, inProgress, "$path.$name")
            (parameter.findAnnotation<JsonPropertyDescription>() ?: property?.findAnnotation<JsonPropertyDescription>())
                ?.let { p.put("description", it.value) }
            props.set<JsonNode>(wire, p)
            required.add(wire)
        }
        s.put("additionalProperties", false)
        inProgress.remove(c)
        return s
    }

    /** A Java record: described by the core, which the model then sees the same way from Java and Kotlin. */
    private fun recordSchema(record: Class<*>): ObjectNode =
        DynamicTool.of("schema", "", record) { ToolResult.text("") }.inputSchema()

    private fun substitute(type: KType, bindings: Map<KTypeParameter, KTypeProjection>): KType {
        val classifier = type.classifier
        if (classifier is KTypeParameter) {
            val bound = bindings[classifier]?.type ?: return type
            return if (type.isMarkedNullable) nullableOf(bound) else bound
        }
        return type
    }

    private fun nullableOf(type: KType): KType = object : KType by type {
        override val isMarkedNullable: Boolean get() = true
    }

    private fun array(items: ObjectNode): ObjectNode =
        json.objectNode().put("type", "array").also { it.set<JsonNode>("items", items) }

    private fun nullable(inner: ObjectNode): ObjectNode = json.objectNode().also {
        val any = it.putArray("anyOf")
        any.add(inner)
        any.add(json.objectNode().put("type", "null"))
    }

    private fun wireName(constant: Enum<*>): String =
        constant.declaringJavaClass.getField(constant.name).getAnnotation(JsonProperty::class.java)
            ?.value?.takeIf { it.isNotEmpty() } ?: constant.name
}
