package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;
import static dev.codexclient.generator.Types.*;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeName;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import javax.lang.model.element.Modifier;

/**
 * The code that reads one value off the parser, or writes one to the generator, for a type of the model.
 *
 * <p>Every read is a static call chosen at generation time: scalars through {@code BindingSupport}, generated
 * types through their binder, lists and maps through a helper method written into the binder that needs it.
 * There is no call through an interface per value, so each call site sees one target.
 */
final class Codec {
    private final Generator g;
    private final Types types;

    Codec(Generator g, Types types) {
        this.g = g;
        this.types = types;
    }

    /** The collection helpers one binder class needs, by method name. */
    static final class Helpers {
        private final Map<String, MethodSpec> methods = new TreeMap<>();

        Collection<MethodSpec> all() {
            return methods.values();
        }
    }

    /** An expression reading the value the parser is at ({@code p}, context {@code c}). */
    CodeBlock read(Ty ty, boolean primitive, Helpers h) {
        return read(ty, primitive, h, CodeBlock.of("p"));
    }

    /** An expression reading the value the parser {@code parser} is at. */
    CodeBlock read(Ty ty, boolean primitive, Helpers h, CodeBlock parser) {
        if (ty instanceof Prim p) {
            String m = switch (p.prim()) {
                case "boolean" -> primitive ? "bool" : "boolOrNull";
                case "int" -> primitive ? "intValue" : "intOrNull";
                case "long" -> primitive ? "longValue" : "longOrNull";
                case "double" -> primitive ? "doubleValue" : "doubleOrNull";
                default -> throw new IllegalStateException(p.prim());
            };
            return CodeBlock.of("$T.$L($L, c)", SUPPORT, m, parser);
        } else if (ty instanceof Str) {
            return CodeBlock.of("$T.string($L, c)", SUPPORT, parser);
        } else if (ty instanceof Any) {
            return CodeBlock.of("$T.tree($L, c)", SUPPORT, parser);
        } else if (ty instanceof Named n) {
            if (g.kind(n.name()) == Kind.HANDWRITTEN) {
                return CodeBlock.of("$T.requestId($L, c)", SUPPORT, parser);
            }
            return CodeBlock.of("$T.read($L, c)", types.binder(n.name()), parser);
        }
        return CodeBlock.of("$N($L, c)", readHelper(ty, h), parser);
    }

    /** A statement writing {@code value} (which may be null unless primitive) to {@code g}. */
    CodeBlock write(Ty ty, boolean primitive, CodeBlock value, Helpers h) {
        if (ty instanceof Prim p) {
            if (primitive) {
                return CodeBlock.of(p.prim().equals("boolean") ? "g.writeBoolean($L);\n" : "g.writeNumber($L);\n",
                        value);
            }
            return CodeBlock.of("$T.write(g, $L);\n", SUPPORT, value);
        } else if (ty instanceof Str) {
            return CodeBlock.of("$T.write(g, $L);\n", SUPPORT, value);
        } else if (ty instanceof Any) {
            return CodeBlock.of("$T.writeTree(g, $L, s);\n", SUPPORT, value);
        } else if (ty instanceof Named n) {
            if (g.kind(n.name()) == Kind.HANDWRITTEN) {
                return CodeBlock.of("$T.write(g, $L);\n", SUPPORT, value);
            }
            return CodeBlock.of("$T.write(g, $L, s);\n", types.binder(n.name()), value);
        }
        return CodeBlock.of("$N(g, $L, s);\n", writeHelper(ty, h), value);
    }

    private static String suffix(Ty ty, Types types) {
        if (ty instanceof Prim p) {
            return p.boxed();
        } else if (ty instanceof Str) {
            return "String";
        } else if (ty instanceof Any) {
            return "Json";
        } else if (ty instanceof Named n) {
            return types.named(n.name()).simpleName();
        } else if (ty instanceof ListOf l) {
            return "ListOf" + suffix(l.item(), types);
        } else if (ty instanceof MapOf m) {
            return "MapOf" + suffix(m.value(), types);
        }
        throw new IllegalStateException(ty.toString());
    }

    private String readHelper(Ty ty, Helpers h) {
        String name = "read" + suffix(ty, types);
        if (h.methods.containsKey(name)) {
            return name;
        }
        h.methods.put(name, null); // reserve: element types may need helpers of their own
        TypeName type = types.of(ty, false);
        MethodSpec.Builder m = MethodSpec.methodBuilder(name)
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .returns(type)
                .addParameter(JSON_PARSER, "p")
                .addParameter(CONTEXT, "c")
                .addException(IO_EXCEPTION)
                .beginControlFlow("if (p.currentToken() == $T.VALUE_NULL)", JSON_TOKEN)
                .addStatement("return null")
                .endControlFlow();
        if (ty instanceof ListOf l) {
            m.addStatement("$T.expectArray(p, c)", SUPPORT)
                    .addStatement("$T out = new $T<>()", type, ARRAY_LIST)
                    .beginControlFlow("while (p.nextToken() != $T.END_ARRAY)", JSON_TOKEN)
                    .addStatement("out.add($L)", read(l.item(), false, h))
                    .endControlFlow()
                    .addStatement("return out");
        } else if (ty instanceof MapOf mo) {
            m.addStatement("$T.expectObject(p, c)", SUPPORT)
                    .addStatement("$T out = new $T<>()", type, LINKED_HASH_MAP)
                    .beginControlFlow("for ($T t = p.nextToken(); t == $T.FIELD_NAME; t = p.nextToken())",
                            JSON_TOKEN, JSON_TOKEN)
                    .addStatement("$T key = p.currentName()", STRING)
                    .addStatement("p.nextToken()")
                    .addStatement("out.put(key, $L)", read(mo.value(), false, h))
                    .endControlFlow()
                    .addStatement("return out");
        } else {
            throw new IllegalStateException(ty.toString());
        }
        h.methods.put(name, m.build());
        return name;
    }

    private String writeHelper(Ty ty, Helpers h) {
        String name = "write" + suffix(ty, types);
        if (h.methods.containsKey(name)) {
            return name;
        }
        h.methods.put(name, null);
        TypeName type = types.of(ty, false);
        MethodSpec.Builder m = MethodSpec.methodBuilder(name)
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .addParameter(JSON_GENERATOR, "g")
                .addParameter(type, "v")
                .addParameter(PROVIDER, "s")
                .addException(IO_EXCEPTION)
                .beginControlFlow("if (v == null)")
                .addStatement("g.writeNull()")
                .addStatement("return")
                .endControlFlow();
        if (ty instanceof ListOf l) {
            m.addStatement("g.writeStartArray()")
                    .beginControlFlow("for ($T item : v)", types.of(l.item(), false))
                    .addCode(write(l.item(), false, CodeBlock.of("item"), h))
                    .endControlFlow()
                    .addStatement("g.writeEndArray()");
        } else if (ty instanceof MapOf mo) {
            m.addStatement("g.writeStartObject()")
                    .beginControlFlow("for ($T.Entry<$T, $T> e : v.entrySet())", MAP, STRING,
                            types.of(mo.value(), false))
                    .addStatement("g.writeFieldName(e.getKey())")
                    .addCode(write(mo.value(), false, CodeBlock.of("e.getValue()"), h))
                    .endControlFlow()
                    .addStatement("g.writeEndObject()");
        } else {
            throw new IllegalStateException(ty.toString());
        }
        h.methods.put(name, m.build());
        return name;
    }
}
