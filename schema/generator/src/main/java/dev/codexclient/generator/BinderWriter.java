package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;
import static dev.codexclient.generator.Types.*;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Modifier;

/**
 * Writes the binder of each generated type: a package-private class {@code FooJson} that reads {@code Foo}
 * straight off a {@code JsonParser} into its canonical constructor and writes it back, with the Jackson
 * deserializer and serializer the type's annotations name.
 *
 * <p>Records read member by member in one pass: a {@code switch} on the member name, each value read by a static
 * call (see {@link Codec}), members the schema does not declare kept in the record's {@code UnknownMembers}.
 * Tagged unions read their tag and, when it comes first (as codex writes it), bind the variant in the same pass;
 * otherwise they read the object as a tree and bind from that. Unknown tags, methods, strings and shapes are kept
 * whole in {@code Unrecognized}. Externally tagged and untagged unions, which are small and rare, read a tree
 * first.
 */
final class BinderWriter {
    /** Local names the binder code uses itself; a component of the same name gets a trailing underscore. */
    private static final Set<String> TAKEN = Set.of("p", "c", "g", "s", "t", "v", "x", "member", "unknown", "e",
            "raw", "tag", "n", "out", "key", "token", "q");

    private final Generator g;
    private final Types types;
    private final Codec codec;

    BinderWriter(Generator g, Types types) {
        this.g = g;
        this.types = types;
        this.codec = new Codec(g, types);
    }

    private static String local(Field f) {
        return TAKEN.contains(f.name()) ? f.name() + "_" : f.name();
    }

    /** The class skeleton: Jackson's deserializer (the class itself) and serializer ({@code Ser}). */
    private TypeSpec.Builder skeleton(Head h) {
        ClassName type = types.named(h.schemaName());
        ClassName binder = types.binder(h.schemaName());
        TypeSpec ser = TypeSpec.classBuilder("Ser")
                .addModifiers(Modifier.STATIC, Modifier.FINAL)
                .superclass(ParameterizedTypeName.get(STD_SERIALIZER, type))
                .addField(FieldSpec.builder(TypeName.LONG, "serialVersionUID", Modifier.PRIVATE, Modifier.STATIC,
                        Modifier.FINAL).initializer("1L").build())
                .addMethod(MethodSpec.constructorBuilder().addStatement("super($T.class)", type).build())
                .addMethod(MethodSpec.methodBuilder("serialize")
                        .addAnnotation(Override.class)
                        .addModifiers(Modifier.PUBLIC)
                        .addParameter(type, "v")
                        .addParameter(JSON_GENERATOR, "g")
                        .addParameter(PROVIDER, "s")
                        .addException(IO_EXCEPTION)
                        .addStatement("write(g, v, s)")
                        .build())
                .build();
        return TypeSpec.classBuilder(binder)
                .addJavadoc("Reads and writes {@link $T}; generated with it.\n", type)
                .addAnnotation(AnnotationSpec.builder(SuppressWarnings.class)
                        .addMember("value", "$S", "deprecation").build())
                .addModifiers(Modifier.FINAL)
                .superclass(ParameterizedTypeName.get(STD_DESERIALIZER, type))
                .addField(FieldSpec.builder(TypeName.LONG, "serialVersionUID", Modifier.PRIVATE, Modifier.STATIC,
                        Modifier.FINAL).initializer("1L").build())
                .addMethod(MethodSpec.constructorBuilder().addStatement("super($T.class)", type).build())
                .addMethod(MethodSpec.methodBuilder("deserialize")
                        .addAnnotation(Override.class)
                        .addModifiers(Modifier.PUBLIC)
                        .returns(type)
                        .addParameter(JSON_PARSER, "p")
                        .addParameter(CONTEXT, "c")
                        .addException(IO_EXCEPTION)
                        .addStatement("return read(p, c)")
                        .build())
                .addMethod(MethodSpec.methodBuilder("isCachable")
                        .addJavadoc("Stateless: one instance serves every use.\n")
                        .addAnnotation(Override.class)
                        .addModifiers(Modifier.PUBLIC)
                        .returns(TypeName.BOOLEAN)
                        .addStatement("return true")
                        .build())
                .addType(ser);
    }

    private static MethodSpec.Builder reader(String name, TypeName returns) {
        return MethodSpec.methodBuilder(name)
                .addModifiers(Modifier.STATIC)
                .returns(returns)
                .addParameter(JSON_PARSER, "p")
                .addParameter(CONTEXT, "c")
                .addException(IO_EXCEPTION);
    }

    private static MethodSpec.Builder writer(String name, TypeName type) {
        return MethodSpec.methodBuilder(name)
                .addModifiers(Modifier.STATIC)
                .addParameter(JSON_GENERATOR, "g")
                .addParameter(type, "v")
                .addParameter(PROVIDER, "s")
                .addException(IO_EXCEPTION);
    }

    /** Reads {@code null}, else steps into the object; anything else is the caller's mismatch. */
    private static CodeBlock enterObject(TypeName type) {
        return CodeBlock.builder()
                .addStatement("$T t = p.currentToken()", JSON_TOKEN)
                .beginControlFlow("if (t == $T.VALUE_NULL)", JSON_TOKEN)
                .addStatement("return null")
                .endControlFlow()
                .beginControlFlow("if (t == $T.START_OBJECT)", JSON_TOKEN)
                .addStatement("t = p.nextToken()")
                .nextControlFlow("else if (t != $T.FIELD_NAME && t != $T.END_OBJECT)", JSON_TOKEN, JSON_TOKEN)
                .addStatement("return $T.unexpected(p, c, $T.class)", SUPPORT, type)
                .endControlFlow()
                .build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // members of an object: shared by records and union variants

    /**
     * The body that reads the members from the current member name to the end of the object and returns the
     * constructed {@code type}. {@code skip} names a member that is read elsewhere (the tag) and skipped here.
     */
    private CodeBlock readMembers(ClassName type, List<Field> fields, boolean unknowns, String skip,
                                  Codec.Helpers h) {
        return readMembers(type, fields, unknowns, skip, false, h);
    }

    /**
     * @param notification whether the members are a notification's: an {@code id} then makes the message a request,
     *                     which no notification variant may silently swallow
     */
    private CodeBlock readMembers(ClassName type, List<Field> fields, boolean unknowns, String skip,
                                  boolean notification, Codec.Helpers h) {
        CodeBlock.Builder b = CodeBlock.builder();
        Field any = null;
        for (Field f : fields) {
            if (f.anySetter()) {
                any = f;
                b.addStatement("$T $N = null", types.field(f), local(f));
            } else if (f.tristate()) {
                b.addStatement("$T $N = $T.absent()", types.field(f), local(f), TRISTATE);
            } else if (f.primitive()) {
                b.addStatement("$T $N = $L", types.field(f), local(f),
                        f.ty() instanceof Prim p && p.prim().equals("boolean") ? "false" : "0");
            } else {
                b.addStatement("$T $N = null", types.field(f), local(f));
            }
        }
        if (unknowns) {
            b.addStatement("$T<$T, $T> unknown = null", MAP, STRING, JSON_NODE);
        }
        b.addStatement("$T member = null", STRING);
        b.beginControlFlow("try");
        b.beginControlFlow("for ($T token = p.currentToken(); token == $T.FIELD_NAME; token = p.nextToken())",
                JSON_TOKEN, JSON_TOKEN);
        b.addStatement("member = p.currentName()");
        b.addStatement("p.nextToken()");
        b.beginControlFlow("switch (member)");
        for (Field f : fields) {
            if (f.anySetter()) {
                continue;
            }
            String repeated = repeated(type, f);
            CodeBlock read = repeated != null ? CodeBlock.of("$T.$L(p, c)", SUPPORT, repeated)
                    : codec.read(f.ty(), f.primitive(), h);
            if (f.tristate()) {
                b.addStatement("case $S -> $N = $T.tristate($L)", f.wire(), local(f), SUPPORT, read);
            } else {
                b.addStatement("case $S -> $N = $L", f.wire(), local(f), read);
            }
        }
        if (skip != null) {
            b.addStatement("case $S -> p.skipChildren()", skip);
        }
        if (notification) {
            b.addStatement("case $S -> $T.noRequestId(p, c)", "id", SUPPORT);
        }
        if (any != null) {
            MapOf m = (MapOf) any.ty();
            b.addStatement("default -> $N = $T.put($N, member, $L)", local(any), SUPPORT, local(any),
                    codec.read(m.value(), false, h));
        } else if (unknowns) {
            b.addStatement("default -> unknown = $T.unknown(unknown, member, p, c)", SUPPORT);
        } else {
            b.addStatement("default -> p.skipChildren()");
        }
        b.endControlFlow();
        b.endControlFlow();
        b.nextControlFlow("catch ($T | $T e)", IO_EXCEPTION, RuntimeException.class);
        b.addStatement("throw $T.wrap(e, $T.class, member, c)", SUPPORT, type);
        b.endControlFlow();
        List<CodeBlock> args = new ArrayList<>();
        for (Field f : fields) {
            args.add(f.anySetter() ? CodeBlock.of("$T.orEmpty($N)", SUPPORT, local(f)) : CodeBlock.of("$N", local(f)));
        }
        if (unknowns) {
            args.add(CodeBlock.of("$T.of(unknown)", UNKNOWN_MEMBERS));
        }
        b.addStatement("return new $T($L)", type, CodeBlock.join(args, ", "));
        return b.build();
    }

    /**
     * The {@code BindingSupport} method that reads member {@code f} of {@code type} as a value a stream repeats, or
     * null for the plain read: the ids of threads, turns and items (named {@code threadId}, {@code turnId},
     * {@code itemId}, or {@code id} of a thread, a turn, an item) and the optional timestamps ({@code ...AtMs}),
     * which message after message of a stream carries unchanged. Such a read returns the value read last when it is
     * equal, where the decoder keeps them, so that a stream does not copy the same id into a new string every time.
     */
    private String repeated(ClassName type, Field f) {
        if (f.tristate() || f.anySetter()) {
            return null;
        }
        if (f.ty() instanceof Str) {
            String kind = switch (f.wire()) {
                case "threadId" -> "threadId";
                case "turnId" -> "turnId";
                case "itemId" -> "itemId";
                default -> null;
            };
            if (kind != null || !f.wire().equals("id")) {
                return kind;
            }
            if (type.equals(types.named("Thread"))) {
                return "threadId";
            }
            if (type.equals(types.named("Turn"))) {
                return "turnId";
            }
            return types.named("ThreadItem").equals(type.enclosingClassName()) ? "itemId" : null;
        }
        boolean optionalLong = f.ty() instanceof Prim p && p.prim().equals("long") && !f.primitive();
        return optionalLong && f.wire().endsWith("AtMs") ? "millis" : null;
    }

    /** Statements writing the members of {@code v} (no braces); the tag, if any, is the caller's. */
    private CodeBlock writeMembers(List<Field> fields, boolean unknowns, Codec.Helpers h) {
        CodeBlock.Builder b = CodeBlock.builder();
        for (Field f : fields) {
            CodeBlock acc = CodeBlock.of("v.$N()", f.name());
            if (f.anySetter()) {
                MapOf m = (MapOf) f.ty();
                b.beginControlFlow("if ($L != null)", acc);
                b.beginControlFlow("for ($T.Entry<$T, $T> e : $L.entrySet())", MAP, STRING, types.of(m.value(), false),
                        acc);
                b.addStatement("g.writeFieldName(e.getKey())");
                b.add(codec.write(m.value(), false, CodeBlock.of("e.getValue()"), h));
                b.endControlFlow();
                b.endControlFlow();
            } else if (f.tristate()) {
                b.beginControlFlow("if ($L != null && !$L.isAbsent())", acc, acc);
                b.addStatement("g.writeFieldName($S)", f.wire());
                b.beginControlFlow("if ($L.isNull())", acc);
                b.addStatement("g.writeNull()");
                b.nextControlFlow("else");
                b.add(codec.write(f.ty(), false, CodeBlock.of("$L.get()", acc), h));
                b.endControlFlow();
                b.endControlFlow();
            } else if (f.primitive() || f.alwaysWrite()) {
                b.addStatement("g.writeFieldName($S)", f.wire());
                b.add(codec.write(f.ty(), f.primitive(), acc, h));
            } else {
                b.beginControlFlow("if ($L != null)", acc);
                b.addStatement("g.writeFieldName($S)", f.wire());
                b.add(codec.write(f.ty(), false, acc, h));
                b.endControlFlow();
            }
        }
        if (unknowns) {
            b.addStatement("$T.writeUnknown(g, v.unknownMembers(), s)", SUPPORT);
        }
        return b.build();
    }

    private static MethodSpec nullGuard(MethodSpec.Builder m, CodeBlock body) {
        return m.beginControlFlow("if (v == null)")
                .addStatement("g.writeNull()")
                .addStatement("return")
                .endControlFlow()
                .addCode(body)
                .build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // records and enums

    TypeSpec record(RecordDecl d) {
        ClassName type = types.named(d.head().schemaName());
        Codec.Helpers h = new Codec.Helpers();
        TypeSpec.Builder b = skeleton(d.head());
        b.addMethod(reader("read", type)
                .addJavadoc("Reads a {@code $L} object, or {@code null}, where the parser stands.\n", d.head().schemaName())
                .addCode(enterObject(type))
                .addCode(readMembers(type, d.fields(), d.unknowns(), null, h))
                .build());
        b.addMethod(nullGuard(writer("write", type), CodeBlock.builder()
                .addStatement("g.writeStartObject()")
                .add(writeMembers(d.fields(), d.unknowns(), h))
                .addStatement("g.writeEndObject()")
                .build()));
        b.addMethods(h.all());
        return b.build();
    }

    TypeSpec enumBinder(EnumDecl d) {
        ClassName type = types.named(d.head().schemaName());
        TypeSpec.Builder b = skeleton(d.head());
        b.addMethod(reader("read", type)
                .addJavadoc("Reads a wire string, or {@code null}; an unknown string is kept as it came.\n")
                .addStatement("$T t = p.currentToken()", JSON_TOKEN)
                .beginControlFlow("if (t == $T.VALUE_STRING)", JSON_TOKEN)
                .addStatement("return $T.of(p.getText())", type)
                .endControlFlow()
                .beginControlFlow("if (t == $T.VALUE_NULL)", JSON_TOKEN)
                .addStatement("return null")
                .endControlFlow()
                .addStatement("return $T.unexpected(p, c, $T.class)", SUPPORT, type)
                .build());
        b.addMethod(nullGuard(writer("write", type), CodeBlock.builder()
                .addStatement("g.writeString(v.asString())").build()));
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // tagged unions (method unions included)

    TypeSpec tagged(TaggedDecl d) {
        ClassName type = types.named(d.head().schemaName());
        ClassName unrec = type.nestedClass("Unrecognized");
        Codec.Helpers h = new Codec.Helpers();
        TypeSpec.Builder b = skeleton(d.head());
        String tag = d.tag();
        b.addMethod(reader("read", type)
                .addJavadoc("Reads a {@code $L}, or {@code null}. When {@code $L} is the first member, as codex writes it,\n"
                        + "the variant is bound in the same pass; otherwise the object is read as a tree first.\n",
                        d.head().schemaName(), tag)
                .addCode(enterObject(type))
                .beginControlFlow("if (t == $T.FIELD_NAME && p.currentName().equals($S))", JSON_TOKEN, tag)
                .beginControlFlow("if (p.nextToken() == $T.VALUE_STRING)", JSON_TOKEN)
                .addStatement("$T tag = $T.$L(p, c)", STRING, SUPPORT, d.methods() ? "methodTag" : "tag")
                .addStatement("p.nextToken()")
                .addStatement("$T v = variant(tag, p, c)", type)
                .beginControlFlow("if (v != null)")
                .addStatement("return v")
                .endControlFlow()
                .addStatement("$T raw = $T.objectNode(c)", OBJECT_NODE, SUPPORT)
                .addStatement("raw.put($S, tag)", tag)
                .addStatement("return new $T($T.readRest(raw, p, c))", unrec, SUPPORT)
                .endControlFlow()
                .addComment("a tag that is not a string: kept as read")
                .addStatement("$T raw = $T.objectNode(c)", OBJECT_NODE, SUPPORT)
                .addStatement("raw.set($S, $T.tree(p, c))", tag, SUPPORT)
                .addStatement("p.nextToken()")
                .addStatement("return new $T($T.readRest(raw, p, c))", unrec, SUPPORT)
                .endControlFlow()
                .addStatement("$T raw = $T.readRest($T.objectNode(c), p, c)", OBJECT_NODE, SUPPORT, SUPPORT)
                .addStatement("$T tag = raw.get($S)", JSON_NODE, tag)
                .beginControlFlow("if (tag != null && tag.isTextual())")
                .addStatement("$T v = variant(tag.textValue(), $T.members(raw, p), c)", type, SUPPORT)
                .beginControlFlow("if (v != null)")
                .addStatement("return v")
                .endControlFlow()
                .endControlFlow()
                .addStatement("return new $T(raw)", unrec)
                .build());
        MethodSpec.Builder variant = reader("variant", type)
                .addModifiers(Modifier.PRIVATE)
                .addJavadoc("Binds the variant tagged {@code tag} from the member after the tag; null for an unknown tag,\n"
                        + "with nothing read.\n")
                .addParameter(STRING, "tag");
        variant.beginControlFlow("switch (tag)");
        for (TaggedVariant v : d.variants()) {
            variant.addStatement("case $S: return read$L(p, c)", v.tag(), v.name());
        }
        variant.addStatement("default: return null");
        variant.endControlFlow();
        // the parameters come before the switch in the signature
        MethodSpec vm = variant.build();
        b.addMethod(MethodSpec.methodBuilder(vm.name()).addModifiers(vm.modifiers()).returns(vm.returnType())
                .addJavadoc(vm.javadoc())
                .addParameter(STRING, "tag").addParameter(JSON_PARSER, "p").addParameter(CONTEXT, "c")
                .addException(IO_EXCEPTION).addCode(vm.code()).build());
        for (TaggedVariant v : d.variants()) {
            ClassName vt = type.nestedClass(v.name());
            b.addMethod(reader("read" + v.name(), vt)
                    .addModifiers(Modifier.PRIVATE)
                    .addCode(readMembers(vt, v.fields(), v.unknowns(), tag, d.methods() && !d.request(), h))
                    .build());
        }
        MethodSpec.Builder write = writer("write", type)
                .beginControlFlow("if (v == null)")
                .addStatement("g.writeNull()")
                .addStatement("return")
                .endControlFlow()
                .beginControlFlow("if (v instanceof $T x)", unrec)
                .addStatement("$T.writeTree(g, x.raw(), s)", SUPPORT)
                .addStatement("return")
                .endControlFlow()
                .beginControlFlow("switch (v.$N())", Names.field(tag));
        for (TaggedVariant v : d.variants()) {
            write.addStatement("case $S -> write$L(g, ($T) v, s)", v.tag(), v.name(), type.nestedClass(v.name()));
        }
        write.addStatement("default -> throw new $T($S + v.getClass())", ILLEGAL_STATE, "not a variant: ");
        write.endControlFlow();
        b.addMethod(write.build());
        for (TaggedVariant v : d.variants()) {
            ClassName vt = type.nestedClass(v.name());
            CodeBlock.Builder body = CodeBlock.builder().addStatement("g.writeStartObject()");
            if (d.methods()) {
                // requests: id, method, params; notifications: method, params, then envelope members
                List<Field> before = new ArrayList<>();
                List<Field> after = new ArrayList<>();
                for (Field f : v.fields()) {
                    if (f.wire().equals("id")) {
                        before.add(f);
                    } else if (f.wire().equals("params")) {
                        after.add(0, f);
                    } else {
                        after.add(f);
                    }
                }
                body.add(writeMembers(before, false, h));
                body.addStatement("g.writeStringField($S, $S)", tag, v.tag());
                body.add(writeMembers(after, false, h));
            } else {
                body.addStatement("g.writeStringField($S, $S)", tag, v.tag());
                body.add(writeMembers(v.fields(), v.unknowns(), h));
            }
            body.addStatement("g.writeEndObject()");
            b.addMethod(writer("write" + v.name(), vt).addModifiers(Modifier.PRIVATE).addCode(body.build()).build());
        }
        b.addMethods(h.all());
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // externally tagged unions

    TypeSpec external(ExternalDecl d) {
        ClassName type = types.named(d.head().schemaName());
        ClassName unrec = type.nestedClass("Unrecognized");
        Codec.Helpers h = new Codec.Helpers();
        TypeSpec.Builder b = skeleton(d.head());
        MethodSpec.Builder read = reader("read", type)
                .addJavadoc("Reads a bare string or a single-key object; anything else is kept in {@code Unrecognized}.\n")
                .beginControlFlow("if (p.currentToken() == $T.VALUE_NULL)", JSON_TOKEN)
                .addStatement("return null")
                .endControlFlow()
                .addStatement("$T n = $T.tree(p, c)", JSON_NODE, SUPPORT);
        if (!d.units().isEmpty()) {
            read.beginControlFlow("if (n.isTextual())");
            read.beginControlFlow("switch (n.textValue())");
            for (EnumConst u : d.units()) {
                read.addStatement("case $S: return $T.$N", u.wire(), type.nestedClass("Simple"), u.name());
            }
            read.addStatement("default: break");
            read.endControlFlow();
            read.endControlFlow();
        }
        if (!d.objs().isEmpty()) {
            read.beginControlFlow("if (n.isObject() && n.size() == 1)");
            read.addStatement("$T key = n.fieldNames().next()", STRING);
            read.addStatement("$T x = n.get(key)", JSON_NODE);
            read.beginControlFlow("switch (key)");
            for (ObjVariant v : d.objs()) {
                ClassName vt = type.nestedClass(v.name());
                if (v.fields() != null) {
                    read.beginControlFlow("case $S:", v.key());
                    read.beginControlFlow("if (x.isObject())");
                    read.addStatement("return read$L($T.members(($T) x, p), c)", v.name(), SUPPORT, OBJECT_NODE);
                    read.endControlFlow();
                    read.addStatement("break");
                    read.endControlFlow();
                } else {
                    read.beginControlFlow("case $S:", v.key());
                    read.addStatement("$T q = $T.at(x, p)", JSON_PARSER, SUPPORT);
                    read.addStatement("return new $T($L)", vt, codec.read(v.value().ty(), false, h, CodeBlock.of("q")));
                    read.endControlFlow();
                }
            }
            read.addStatement("default: break");
            read.endControlFlow();
            read.endControlFlow();
        }
        read.addStatement("return new $T(n)", unrec);
        b.addMethod(read.build());
        for (ObjVariant v : d.objs()) {
            if (v.fields() != null) {
                ClassName vt = type.nestedClass(v.name());
                b.addMethod(reader("read" + v.name(), vt).addModifiers(Modifier.PRIVATE)
                        .addCode(readMembers(vt, v.fields(), true, null, h)).build());
            }
        }
        MethodSpec.Builder write = writer("write", type)
                .beginControlFlow("if (v == null)")
                .addStatement("g.writeNull()")
                .nextControlFlow("else if (v instanceof $T x)", unrec)
                .addStatement("$T.writeTree(g, x.raw(), s)", SUPPORT);
        if (!d.units().isEmpty()) {
            write.nextControlFlow("else if (v instanceof $T x)", type.nestedClass("Simple"))
                    .addStatement("g.writeString(x.asString())");
        }
        for (ObjVariant v : d.objs()) {
            ClassName vt = type.nestedClass(v.name());
            write.nextControlFlow("else if (v instanceof $T x)", vt);
            write.addStatement("g.writeStartObject()");
            write.addStatement("g.writeFieldName($S)", v.key());
            if (v.fields() != null) {
                write.addStatement("write$L(g, x, s)", v.name());
            } else {
                write.addCode(codec.write(v.value().ty(), false, CodeBlock.of("x.value()"), h));
            }
            write.addStatement("g.writeEndObject()");
        }
        write.endControlFlow();
        b.addMethod(write.build());
        for (ObjVariant v : d.objs()) {
            if (v.fields() != null) {
                ClassName vt = type.nestedClass(v.name());
                b.addMethod(writer("write" + v.name(), vt).addModifiers(Modifier.PRIVATE)
                        .addStatement("g.writeStartObject()")
                        .addCode(writeMembers(v.fields(), true, h))
                        .addStatement("g.writeEndObject()")
                        .build());
            }
        }
        b.addMethods(h.all());
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // untagged unions

    TypeSpec untagged(UntaggedDecl d, Matcher matcher) {
        ClassName type = types.named(d.head().schemaName());
        ClassName unrec = type.nestedClass("Unrecognized");
        Codec.Helpers h = new Codec.Helpers();
        TypeSpec.Builder b = skeleton(d.head());
        MethodSpec.Builder read = reader("read", type)
                .addJavadoc("Tries the alternatives in schema order by shape; the first match wins, and a value matching none\n"
                        + "is kept in {@code Unrecognized}.\n")
                .beginControlFlow("if (p.currentToken() == $T.VALUE_NULL)", JSON_TOKEN)
                .addStatement("return null")
                .endControlFlow()
                .addStatement("$T n = $T.tree(p, c)", JSON_NODE, SUPPORT);
        for (UVariant v : d.variants()) {
            CodeBlock cond;
            CodeBlock make;
            switch (v.kind()) {
                case REF -> {
                    cond = CodeBlock.of("$L", matcher.match(v.schema(), "n", 0));
                    make = CodeBlock.of("$T.read($T.at(n, p), c)", types.binder(v.ref()), SUPPORT);
                }
                case TEXT -> {
                    cond = CodeBlock.of("n.isTextual()");
                    make = CodeBlock.of("new $T(n.textValue())", type.nestedClass(v.name()));
                }
                case NUMBER -> {
                    cond = CodeBlock.of("n.isIntegralNumber() && n.canConvertToLong()");
                    make = CodeBlock.of("new $T(n.longValue())", type.nestedClass(v.name()));
                }
                case ARRAY -> {
                    cond = CodeBlock.of("n.isArray()");
                    make = CodeBlock.of("new $T($L)", type.nestedClass(v.name()),
                            codec.read(v.ty(), false, h, CodeBlock.of("$T.at(n, p)", SUPPORT)));
                }
                default -> {
                    cond = CodeBlock.of("$L", matcher.match(v.schema(), "n", 0));
                    make = CodeBlock.of("read$L($T.members(($T) n, p), c)", v.name(), SUPPORT, OBJECT_NODE);
                }
            }
            read.beginControlFlow("if ($L)", cond).addStatement("return $L", make).endControlFlow();
        }
        read.addStatement("return new $T(n)", unrec);
        b.addMethod(read.build());
        for (UVariant v : d.variants()) {
            if (v.kind() == UKind.OBJECT) {
                ClassName vt = type.nestedClass(v.name());
                b.addMethod(reader("read" + v.name(), vt).addModifiers(Modifier.PRIVATE)
                        .addCode(readMembers(vt, v.fields(), true, null, h)).build());
            }
        }
        MethodSpec.Builder write = writer("write", type)
                .beginControlFlow("if (v == null)")
                .addStatement("g.writeNull()")
                .nextControlFlow("else if (v instanceof $T x)", unrec)
                .addStatement("$T.writeTree(g, x.raw(), s)", SUPPORT);
        for (UVariant v : d.variants()) {
            switch (v.kind()) {
                case REF -> write.nextControlFlow("else if (v instanceof $T x)", types.named(v.ref()))
                        .addStatement("$T.write(g, x, s)", types.binder(v.ref()));
                case TEXT -> write.nextControlFlow("else if (v instanceof $T x)", type.nestedClass(v.name()))
                        .addStatement("$T.write(g, x.value())", SUPPORT);
                case NUMBER -> write.nextControlFlow("else if (v instanceof $T x)", type.nestedClass(v.name()))
                        .addStatement("g.writeNumber(x.value())");
                case ARRAY -> write.nextControlFlow("else if (v instanceof $T x)", type.nestedClass(v.name()))
                        .addCode(codec.write(v.ty(), false, CodeBlock.of("x.value()"), h));
                default -> write.nextControlFlow("else if (v instanceof $T x)", type.nestedClass(v.name()))
                        .addStatement("write$L(g, x, s)", v.name());
            }
        }
        write.endControlFlow();
        b.addMethod(write.build());
        for (UVariant v : d.variants()) {
            if (v.kind() == UKind.OBJECT) {
                ClassName vt = type.nestedClass(v.name());
                b.addMethod(writer("write" + v.name(), vt).addModifiers(Modifier.PRIVATE)
                        .addStatement("g.writeStartObject()")
                        .addCode(writeMembers(v.fields(), true, h))
                        .addStatement("g.writeEndObject()")
                        .build());
            }
        }
        b.addMethods(h.all());
        return b.build();
    }
}
