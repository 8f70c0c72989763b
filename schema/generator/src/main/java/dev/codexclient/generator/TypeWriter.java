package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;
import static dev.codexclient.generator.Types.*;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.Modifier;

/** Writes the public protocol types: records, open enums and the four kinds of unions. */
final class TypeWriter {
    private final Types types;
    private final RecordWriter records;

    TypeWriter(Types types) {
        this.types = types;
        this.records = new RecordWriter(types);
    }

    private boolean usesDeprecated(List<Field> fields) {
        return fields.stream().anyMatch(f -> types.deprecated(f.ty()));
    }

    private void parents(TypeSpec.Builder b, Head h) {
        for (String p : h.parents()) {
            b.addSuperinterface(types.named(p));
        }
    }

    private static String text(Head h, String what) {
        String d = Docs.clean(h.doc());
        return d != null ? d : "The {@code " + h.schemaName() + "} " + what + " of the protocol (the schema gives no "
                + "description).";
    }

    // ------------------------------------------------------------------------------------------------------------

    TypeSpec record(RecordDecl d) {
        ClassName self = types.named(d.head().schemaName());
        String text = text(d.head(), "object");
        if (d.builder()) {
            text += "\n\nBuild values with {@link #builder()}: the canonical constructor lists the schema's members in schema "
                    + "order, so it changes when a codex release adds one (see docs/COMPATIBILITY.md).";
        }
        TypeSpec.Builder b = records.record(self, d.fields(), d.unknowns(), text,
                RecordWriter.deprecatedTag(d.head().doc()), d.builder());
        parents(b, d.head());
        RecordWriter.typeAnnotations(b, d.head(), types, usesDeprecated(d.fields()));
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // open enums

    TypeSpec enumType(EnumDecl d) {
        ClassName self = types.named(d.head().schemaName());
        ClassName known = self.nestedClass("Known");
        String s = self.simpleName();
        TypeSpec.Builder b = TypeSpec.classBuilder(self)
                .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc("$L", Docs.javadoc(text(d.head(), "string enum")
                        + "\n\nAn open enum: a value this version of the SDK does not know (from a newer codex) is kept as it "
                        + "came, written back unchanged and readable with {@link #asString()}; {@link #known()} gives "
                        + "{@link Known#UNRECOGNIZED} for it. Compare values with {@code equals} (or {@code ==} for the "
                        + "constants), or {@code switch} on {@link #known()}:\n"
                        + "<pre>{@code\n"
                        + "switch (value.known()) {\n"
                        + "    case " + d.consts().get(0).name() + " -> ...;\n"
                        + "    default -> log(value.asString());\n"
                        + "}\n"
                        + "}</pre>", RecordWriter.deprecatedTag(d.head().doc())));
        parents(b, d.head());
        RecordWriter.typeAnnotations(b, d.head(), types, false);
        TypeSpec.Builder k = TypeSpec.enumBuilder(known)
                .addModifiers(Modifier.PUBLIC)
                .addJavadoc("The values of {@link $T} this version of the SDK knows, for {@code switch}.\n", self);
        List<CodeBlock> all = new ArrayList<>();
        for (EnumConst c : d.consts()) {
            String doc = Docs.orNone(c.doc(), "this value") + "\n\nWire value {@code " + Docs.escape(c.wire()) + "}.";
            FieldSpec.Builder f = FieldSpec.builder(self, c.name(), Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                    .addJavadoc("$L", Docs.javadoc(doc, RecordWriter.deprecatedTag(c.doc())))
                    .initializer("new $T($S, $T.$N)", self, c.wire(), known, c.name());
            TypeSpec.Builder kc = TypeSpec.anonymousClassBuilder("")
                    .addJavadoc("$L", Docs.javadoc("{@link " + s + "#" + c.name() + "}.", List.of()));
            if (c.deprecated()) {
                f.addAnnotation(Deprecated.class);
                kc.addAnnotation(Deprecated.class);
            }
            b.addField(f.build());
            k.addEnumConstant(c.name(), kc.build());
            all.add(CodeBlock.of("$N", c.name()));
        }
        k.addEnumConstant("UNRECOGNIZED", TypeSpec.anonymousClassBuilder("")
                .addJavadoc("A value this version of the SDK does not know; {@link $T#asString()} has it.\n", self)
                .build());
        b.addField(FieldSpec.builder(ParameterizedTypeName.get(LIST, self), "VALUES", Modifier.PRIVATE,
                Modifier.STATIC, Modifier.FINAL).initializer("$T.of($L)", LIST, CodeBlock.join(all, ", ")).build());
        b.addField(FieldSpec.builder(STRING, "value", Modifier.PRIVATE, Modifier.FINAL).build());
        b.addField(FieldSpec.builder(known, "known", Modifier.PRIVATE, Modifier.FINAL).build());
        b.addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE)
                .addParameter(STRING, "value").addParameter(known, "known")
                .addStatement("this.value = value").addStatement("this.known = known").build());
        MethodSpec.Builder of = MethodSpec.methodBuilder("of")
                .addJavadoc("The value of a wire string: its constant when this SDK knows it, else a value that keeps the\n"
                        + "string.\n\n@param value the wire string\n@return the value\n")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(self)
                .addParameter(STRING, "value")
                .beginControlFlow("switch ($T.requireNonNull(value, $S))", OBJECTS, "value");
        for (EnumConst c : d.consts()) {
            of.addStatement("case $S: return $N", c.wire(), c.name());
        }
        of.addStatement("default: return new $T(value, $T.UNRECOGNIZED)", self, known).endControlFlow();
        b.addMethod(of.build());
        b.addMethod(MethodSpec.methodBuilder("values")
                .addJavadoc("The values this version of the SDK knows, in schema order.\n\n@return the constants\n")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(ParameterizedTypeName.get(LIST, self))
                .addStatement("return VALUES").build());
        b.addMethod(MethodSpec.methodBuilder("asString")
                .addJavadoc("The wire string, also of a value this SDK does not know.\n\n@return the wire string\n")
                .addModifiers(Modifier.PUBLIC).returns(STRING).addStatement("return value").build());
        b.addMethod(MethodSpec.methodBuilder("known")
                .addJavadoc("The constant for {@code switch}; {@link Known#UNRECOGNIZED} for a value this SDK does not "
                        + "know.\n\n@return the known constant\n")
                .addModifiers(Modifier.PUBLIC).returns(known).addStatement("return known").build());
        b.addMethod(MethodSpec.methodBuilder("isKnown")
                .addJavadoc("Whether this SDK knows the value.\n\n@return false for a value from a newer codex\n")
                .addModifiers(Modifier.PUBLIC).returns(TypeName.BOOLEAN)
                .addStatement("return known != $T.UNRECOGNIZED", known).build());
        b.addMethod(MethodSpec.methodBuilder("equals")
                .addJavadoc("Equal when the wire strings are.\n\n@param o the other object\n@return whether equal\n")
                .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(TypeName.BOOLEAN)
                .addParameter(Object.class, "o")
                .addStatement("return o == this || (o instanceof $T other && value.equals(other.value))", self).build());
        b.addMethod(MethodSpec.methodBuilder("hashCode")
                .addJavadoc("The hash of the wire string.\n\n@return the hash\n")
                .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(TypeName.INT)
                .addStatement("return value.hashCode()").build());
        b.addMethod(MethodSpec.methodBuilder("toString")
                .addJavadoc("The constant's name; for a value this SDK does not know {@code UNRECOGNIZED} and the length of\n"
                        + "the string, which {@link #asString()} gives.\n\n@return the text\n")
                .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(STRING)
                .addStatement("return isKnown() ? known.name() : $S + value.length() + $S", "UNRECOGNIZED(", " chars)")
                .build());
        b.addType(k.build());
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // internally tagged unions, method unions included

    TypeSpec tagged(TaggedDecl d) {
        return tagged(d, Map.of());
    }

    /**
     * An internally tagged union; for a notification union, {@code routes} gives the variants whose params name a
     * thread or turn (see {@link Routing}).
     */
    TypeSpec tagged(TaggedDecl d, Map<String, Routing.Routes> routes) {
        ClassName self = types.named(d.head().schemaName());
        boolean notifications = d.methods() && !d.request();
        String tag = d.tag();
        String tagName = Names.field(tag);
        String intro = d.methods()
                ? (Docs.clean(d.head().doc()) == null ? "Every {@code " + d.head().schemaName() + "} message of the protocol."
                : Docs.clean(d.head().doc()))
                + "\n\nA value decodes from the whole message object (" + (d.request() ? "{@code id}, " : "")
                + "{@code method}, {@code params}" + (d.common().isEmpty() ? "" : ", {@code emittedAtMs}")
                + "); a method this version of the SDK does not know decodes as {@link Unrecognized}, which keeps the raw "
                + "message."
                : text(d.head(), "union") + "\n\nVariants are told apart by {@code " + tag + "}; an unknown value decodes as "
                + "{@link Unrecognized}, which keeps the raw object and writes it back unchanged.";
        TypeSpec.Builder b = TypeSpec.interfaceBuilder(self)
                .addModifiers(Modifier.PUBLIC, Modifier.SEALED)
                .addJavadoc("$L", Docs.javadoc(intro, RecordWriter.deprecatedTag(d.head().doc())));
        parents(b, d.head());
        boolean dep = d.variants().stream().anyMatch(v -> v.deprecated() || usesDeprecated(v.fields()));
        RecordWriter.typeAnnotations(b, d.head(), types, dep);
        // No @JsonSubTypes table here: Jackson parses a type's annotations when it first binds the type, and a table
        // of class literals loads every variant with the first message. The *Methods classes hold that table.
        b.addMethod(MethodSpec.methodBuilder(tagName)
                .addJavadoc(d.methods() ? "The wire method name.\n\n@return the method\n"
                        : "The discriminator {@code " + tag + "}.\n\n@return the tag value\n")
                .addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT).returns(STRING).build());
        if (d.request()) {
            b.addMethod(MethodSpec.methodBuilder("id")
                    .addJavadoc("The request id the response must echo.\n\n@return the id\n")
                    .addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT).returns(REQUEST_ID).build());
        }
        for (Field f : d.common()) {
            String doc = Docs.inline(Docs.clean(f.doc()));
            b.addMethod(MethodSpec.methodBuilder(f.name())
                    .addJavadoc("$L", Docs.javadoc((doc.isEmpty() ? "Common member {@code " + f.wire() + "}." : doc)
                            + " Null on {@link Unrecognized}.", List.of("@return the value")))
                    .addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT).returns(types.field(f)).build());
        }
        for (Field f : d.shared()) {
            String doc = Docs.inline(Docs.clean(f.doc()));
            b.addMethod(MethodSpec.methodBuilder(f.name())
                    .addJavadoc("$L", Docs.javadoc((doc.isEmpty() ? "The member {@code " + f.wire() + "}." : doc)
                            + " Every variant has it: each known one requires it, and {@link Unrecognized} answers it "
                            + "from the object as read. Null only when the server left it out (on {@link Unrecognized}: "
                            + "when it is missing or not a string).", List.of("@return the value")))
                    .addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT).returns(STRING).build());
        }
        if (d.methods()) {
            b.addMethod(MethodSpec.methodBuilder("params")
                    .addJavadoc("The params object, or null for a method without params (or with params omitted).\n\n"
                            + "@return the params\n")
                    .addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT).returns(OBJECT).build());
        }
        if (notifications) {
            b.addMethod(routeDefault("threadId", "thread"));
            b.addMethod(routeDefault("turnId", "turn"));
        }
        for (TaggedVariant v : d.variants()) {
            ClassName vt = self.nestedClass(v.name());
            StringBuilder vdoc = new StringBuilder();
            if (d.methods()) {
                MethodDecl m = v.method();
                String dt = Docs.clean(m.doc());
                vdoc.append(dt == null ? "" : dt + "\n\n").append("Method {@code ").append(m.method()).append("}");
                vdoc.append(m.responseType() != null ? "; the result is {@link " + types.named(m.responseType()).canonicalName()
                        + "}." : ".");
            } else {
                String vtext = Docs.clean(v.doc());
                vdoc.append(vtext == null ? "The {@code " + v.tag() + "} variant (the schema gives no description)." : vtext);
                for (List<String> grp : v.exclusiveGroups()) {
                    vdoc.append("\n\nExactly one of ")
                            .append(String.join(" / ", grp.stream().map(x -> "{@code " + x + "}").toList()))
                            .append(" is set.");
                }
            }
            TypeSpec.Builder r = records.record(vt, v.fields(), v.unknowns(), vdoc.toString(),
                    RecordWriter.deprecatedTag(d.methods() ? Docs.strip(v.doc()) : v.doc()), false)
                    .addSuperinterface(self);
            if (v.experimental()) {
                r.addAnnotation(EXPERIMENTAL);
            }
            if (v.deprecated()) {
                r.addAnnotation(Deprecated.class);
            }
            r.addMethod(MethodSpec.methodBuilder(tagName)
                    .addJavadoc("Always {@code $L}.\n\n@return the tag value\n", v.tag())
                    .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(STRING)
                    .addStatement("return $S", v.tag()).build());
            if (d.methods() && v.method().paramsKind() == ParamsKind.NONE) {
                r.addMethod(MethodSpec.methodBuilder("params")
                        .addJavadoc("Always null: the method has no params.\n\n@return null\n")
                        .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(OBJECT)
                        .addStatement("return null").build());
            }
            Routing.Routes route = notifications ? routes.get(v.name()) : null;
            if (route != null && route.thread() != null) {
                r.addMethod(routeOverride("threadId", route.thread()));
            }
            if (route != null && route.turn() != null) {
                r.addMethod(routeOverride("turnId", route.turn()));
            }
            b.addType(r.addModifiers(Modifier.STATIC).build());
        }
        b.addType(unrecognizedObject(self, d));
        return b.build();
    }

    private static final TypeName OPTIONAL_STRING = ParameterizedTypeName.get(OPTIONAL, STRING);

    /** The interface's {@code threadId()} or {@code turnId()}: empty unless a variant's params name one. */
    private static MethodSpec routeDefault(String name, String object) {
        return MethodSpec.methodBuilder(name)
                .addJavadoc("The $L this notification belongs to: the params' {@code $L} member, else the {@code id} of"
                        + " their\n{@code $L} object; empty when the method's params name no $L.\n\n"
                        + "@return the id, or empty\n",
                        object, name, object, object)
                .addModifiers(Modifier.PUBLIC, Modifier.DEFAULT).returns(OPTIONAL_STRING)
                .addStatement("return $T.empty()", OPTIONAL).build();
    }

    /** A variant's {@code threadId()} or {@code turnId()}, read from its typed params with plain accessor calls. */
    private static MethodSpec routeOverride(String name, Routing.Route route) {
        MethodSpec.Builder m = MethodSpec.methodBuilder(name)
                .addJavadoc("Read from the typed params.\n\n@return the id, or empty\n")
                .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(OPTIONAL_STRING);
        if (route.member() != null && route.object() == null) {
            return m.addStatement("return params == null ? $T.empty() : $T.ofNullable(params.$N())", OPTIONAL,
                    OPTIONAL, route.member()).build();
        }
        m.beginControlFlow("if (params == null)").addStatement("return $T.empty()", OPTIONAL).endControlFlow();
        if (route.member() != null) {
            m.beginControlFlow("if (params.$N() != null)", route.member())
                    .addStatement("return $T.of(params.$N())", OPTIONAL, route.member()).endControlFlow();
        }
        return m.addStatement("return params.$N() == null ? $T.empty() : $T.ofNullable(params.$N().id())",
                route.object(), OPTIONAL, OPTIONAL, route.object()).build();
    }

    private TypeSpec unrecognizedObject(ClassName self, TaggedDecl d) {
        String tagName = Names.field(d.tag());
        TypeSpec.Builder u = TypeSpec.recordBuilder(self.nestedClass("Unrecognized"))
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .addSuperinterface(self)
                .addJavadoc("$L", Docs.javadoc((d.methods() ? "A message whose method" : "A variant whose tag")
                        + " this version of the SDK does not know; {@code raw} is written back unchanged. Its "
                        + "{@code toString()} shows the shape of the object, not its values, which may hold anything the "
                        + "server sent.", List.of("@param raw the object as read")))
                .recordConstructor(MethodSpec.constructorBuilder().addParameter(OBJECT_NODE, "raw").build());
        u.addMethod(MethodSpec.methodBuilder(tagName)
                .addJavadoc("The tag as read, or null when it is not a string.\n\n@return the tag\n")
                .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(STRING)
                .addStatement("return raw.path($S).textValue()", d.tag()).build());
        if (d.request()) {
            u.addMethod(MethodSpec.methodBuilder("id")
                    .addJavadoc("The id as read, or null when it is missing or neither a string nor an integer.\n\n"
                            + "@return the id\n")
                    .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(REQUEST_ID)
                    .addStatement("return $T.requestId(raw.get($S))", SUPPORT, "id").build());
        }
        for (Field f : d.common()) {
            MethodSpec.Builder m = MethodSpec.methodBuilder(f.name())
                    .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(types.field(f));
            if (d.methods()) {
                m.addJavadoc("The member as read, or null.\n\n@return the value\n")
                        .addStatement("return $T.longOrNull(raw.get($S))", SUPPORT, f.wire());
            } else {
                m.addJavadoc("Always null: the variant is unknown.\n\n@return null\n").addStatement("return null");
            }
            u.addMethod(m.build());
        }
        for (Field f : d.shared()) {
            u.addMethod(MethodSpec.methodBuilder(f.name())
                    .addJavadoc("The member as read, or null when it is missing or not a string.\n\n@return the value\n")
                    .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(STRING)
                    .addStatement("return raw.path($S).textValue()", f.wire()).build());
        }
        if (d.methods()) {
            u.addMethod(MethodSpec.methodBuilder("params")
                    .addJavadoc("The params as read, or null.\n\n@return the params\n")
                    .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(JSON_NODE)
                    .addStatement("return raw.get($S)", "params").build());
        }
        if (d.methods() && !d.request()) {
            for (String[] id : new String[][] {{"threadId", "thread"}, {"turnId", "turn"}}) {
                u.addMethod(MethodSpec.methodBuilder(id[0])
                        .addJavadoc("Read from the raw params by the same rule as for a known method.\n\n"
                        + "@return the id, or empty\n")
                        .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(OPTIONAL_STRING)
                        .addStatement("return $T.ofNullable($T.routeId(raw.get($S), $S, $S))", OPTIONAL, SUPPORT,
                                "params", id[0], id[1])
                        .build());
            }
        }
        u.addMethod(MethodSpec.methodBuilder("toString")
                .addJavadoc("The tag and the shape of the object, without its values.\n\n@return the text\n")
                .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(STRING)
                .addStatement("return $S + $N() + $S + $T.shape(raw) + $S", "Unrecognized[" + tagName + "=", tagName,
                        ", raw=", SUPPORT, "]")
                .build());
        return u.build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // externally tagged unions

    TypeSpec external(ExternalDecl d) {
        ClassName self = types.named(d.head().schemaName());
        ClassName simple = self.nestedClass("Simple");
        TypeSpec.Builder b = TypeSpec.interfaceBuilder(self)
                .addModifiers(Modifier.PUBLIC, Modifier.SEALED)
                .addJavadoc("$L", Docs.javadoc(text(d.head(), "union")
                        + "\n\nOn the wire a variant is either a bare string ({@link Simple}, also available as constants "
                        + "of this interface) or an object with a single key naming the variant. Anything else decodes as "
                        + "{@link Unrecognized}, which is written back unchanged.", RecordWriter.deprecatedTag(d.head().doc())));
        parents(b, d.head());
        boolean dep = d.objs().stream().anyMatch(v -> v.fields() != null && usesDeprecated(v.fields()));
        RecordWriter.typeAnnotations(b, d.head(), types, dep);
        if (!d.units().isEmpty()) {
            TypeSpec.Builder e = TypeSpec.enumBuilder(simple)
                    .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                    .addSuperinterface(self)
                    .addJavadoc("The variants written as a bare string. A string this SDK does not know decodes as\n"
                            + "{@link Unrecognized}, which keeps it.\n");
            for (EnumConst c : d.units()) {
                String doc = Docs.orNone(c.doc(), "this value") + "\n\nWire value {@code " + Docs.escape(c.wire()) + "}.";
                TypeSpec.Builder kc = TypeSpec.anonymousClassBuilder("$S", c.wire())
                        .addJavadoc("$L", Docs.javadoc(doc, RecordWriter.deprecatedTag(c.doc())));
                FieldSpec.Builder f = FieldSpec.builder(simple, c.name(), Modifier.PUBLIC, Modifier.STATIC,
                                Modifier.FINAL)
                        .addJavadoc("$L", Docs.javadoc(doc, RecordWriter.deprecatedTag(c.doc())))
                        .initializer("$T.$N", simple, c.name());
                if (c.deprecated()) {
                    kc.addAnnotation(Deprecated.class);
                    f.addAnnotation(Deprecated.class);
                }
                e.addEnumConstant(c.name(), kc.build());
                b.addField(f.build());
            }
            e.addField(STRING, "value", Modifier.PRIVATE, Modifier.FINAL);
            e.addMethod(MethodSpec.constructorBuilder().addParameter(STRING, "value")
                    .addStatement("this.value = value").build());
            e.addMethod(MethodSpec.methodBuilder("asString")
                    .addJavadoc("The wire string.\n\n@return the wire string\n")
                    .addModifiers(Modifier.PUBLIC).returns(STRING).addStatement("return value").build());
            b.addType(e.build());
        }
        for (ObjVariant v : d.objs()) {
            ClassName vt = self.nestedClass(v.name());
            String vtext = Docs.clean(v.doc());
            String doc = (vtext == null ? "The {@code " + v.key() + "} variant (the schema gives no description)."
                    : vtext) + "\n\nWritten as {@code {\"" + v.key() + "\": …}}.";
            TypeSpec.Builder r;
            if (v.fields() != null) {
                r = records.record(vt, v.fields(), true, doc, List.of(), false);
            } else {
                r = TypeSpec.recordBuilder(vt).addModifiers(Modifier.PUBLIC)
                        .addJavadoc("$L", Docs.javadoc(doc, List.of("@param value the payload of {@code " + v.key() + "}")))
                        .recordConstructor(MethodSpec.constructorBuilder()
                                .addParameter(types.of(v.value().ty(), false), "value").build());
            }
            r.addSuperinterface(self).addModifiers(Modifier.STATIC);
            if (v.experimental()) {
                r.addAnnotation(EXPERIMENTAL);
            }
            b.addType(r.build());
        }
        b.addType(unrecognizedValue(self, "A value this version of the SDK does not know"));
        return b.build();
    }

    private TypeSpec unrecognizedValue(ClassName self, String what) {
        return TypeSpec.recordBuilder(self.nestedClass("Unrecognized"))
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .addSuperinterface(self)
                .addJavadoc("$L", Docs.javadoc(what + "; {@code raw} is written back unchanged. Its {@code toString()} "
                        + "shows the shape of the value, not the value, which may hold anything the server sent.",
                        List.of("@param raw the value as read")))
                .recordConstructor(MethodSpec.constructorBuilder().addParameter(JSON_NODE, "raw").build())
                .addMethod(MethodSpec.methodBuilder("toString")
                        .addJavadoc("The shape of the value, without its content.\n\n@return the text\n")
                        .addAnnotation(Override.class).addModifiers(Modifier.PUBLIC).returns(STRING)
                        .addStatement("return $S + $T.shape(raw) + $S", "Unrecognized[raw=", SUPPORT, "]").build())
                .build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // untagged unions

    TypeSpec untagged(UntaggedDecl d) {
        ClassName self = types.named(d.head().schemaName());
        TypeSpec.Builder b = TypeSpec.interfaceBuilder(self)
                .addModifiers(Modifier.PUBLIC, Modifier.SEALED)
                .addJavadoc("$L", Docs.javadoc(text(d.head(), "union")
                        + "\n\nThe alternatives carry no tag; they are tried in schema order by shape, and a value matching "
                        + "none decodes as {@link Unrecognized}, which is written back unchanged.",
                        RecordWriter.deprecatedTag(d.head().doc())));
        parents(b, d.head());
        RecordWriter.typeAnnotations(b, d.head(), types, false);
        for (UVariant v : d.variants()) {
            b.addPermittedSubclass(v.kind() == UKind.REF ? types.named(v.ref()) : self.nestedClass(v.name()));
        }
        b.addPermittedSubclass(self.nestedClass("Unrecognized"));
        for (UVariant v : d.variants()) {
            if (v.kind() == UKind.REF) {
                continue;
            }
            ClassName vt = self.nestedClass(v.name());
            String vtext = Docs.clean(v.doc());
            if (v.kind() == UKind.OBJECT) {
                b.addType(records.record(vt, v.fields(), true, vtext == null
                                ? "The {@code " + v.name() + "} alternative (the schema gives no description)." : vtext,
                        List.of(), false).addSuperinterface(self).addModifiers(Modifier.STATIC).build());
            } else {
                boolean prim = v.kind() == UKind.NUMBER;
                b.addType(TypeSpec.recordBuilder(vt).addModifiers(Modifier.PUBLIC, Modifier.STATIC).addSuperinterface(self)
                        .addJavadoc("$L", Docs.javadoc(vtext == null ? "The " + v.kind().name().toLowerCase()
                                + " alternative (the schema gives no description)." : vtext,
                                List.of("@param value the JSON value")))
                        .recordConstructor(MethodSpec.constructorBuilder()
                                .addParameter(types.of(v.ty(), prim), "value").build())
                        .build());
            }
        }
        b.addType(unrecognizedValue(self, "A value matching no alternative"));
        return b.build();
    }
}
