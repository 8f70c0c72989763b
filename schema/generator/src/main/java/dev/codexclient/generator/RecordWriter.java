package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;
import static dev.codexclient.generator.Types.*;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * Writes records: top-level objects and the object variants of unions. A record has one component per schema
 * property, then (unless the schema keeps extra members itself) {@code unknownMembers}; a second constructor
 * leaves that one out. Records with credentials print them masked; records built by clients get a builder.
 */
final class RecordWriter {
    static final String REDACTED = "[REDACTED]";

    private final Types types;

    RecordWriter(Types types) {
        this.types = types;
    }

    /** A record named {@code self} with the given components; {@code text} is its Javadoc's main text. */
    TypeSpec.Builder record(ClassName self, List<Field> fields, boolean unknowns, String text, List<String> moreTags,
                            boolean builder) {
        List<String> tags = new ArrayList<>(paramTags(fields));
        if (unknowns) {
            tags.add(UNKNOWN_PARAM);
        }
        tags.addAll(moreTags);
        TypeSpec.Builder b = TypeSpec.recordBuilder(self)
                .addModifiers(Modifier.PUBLIC)
                .addJavadoc("$L", Docs.javadoc(text, tags));
        MethodSpec.Builder ctor = MethodSpec.constructorBuilder();
        for (Field f : fields) {
            ctor.addParameter(component(f));
        }
        if (unknowns) {
            ctor.addParameter(UNKNOWN_MEMBERS, "unknownMembers");
        }
        b.recordConstructor(ctor.build());
        if (unknowns) {
            List<String> ptags = new ArrayList<>(paramTags(fields));
            MethodSpec.Builder c = MethodSpec.constructorBuilder()
                    .addModifiers(Modifier.PUBLIC)
                    .addJavadoc("$L", Docs.javadoc("Creates a value without unknown members.", ptags));
            List<CodeBlock> args = new ArrayList<>();
            for (Field f : fields) {
                c.addParameter(ParameterSpec.builder(types.field(f), f.name()).build());
                args.add(CodeBlock.of("$N", f.name()));
            }
            args.add(CodeBlock.of("$T.none()", UNKNOWN_MEMBERS));
            c.addStatement("this($L)", CodeBlock.join(args, ", "));
            b.addMethod(c.build());
        }
        MethodSpec ts = toStringMethod(self.simpleName(), fields, unknowns);
        if (ts != null) {
            b.addMethod(ts);
        }
        if (builder && !fields.isEmpty()) {
            builder(b, self, fields, unknowns);
        }
        return b;
    }

    static final String UNKNOWN_PARAM = "@param unknownMembers members the schema of this SDK version does not declare,"
            + " kept as read and written back unchanged; {@link UnknownMembers#none()} when there are none";

    private ParameterSpec component(Field f) {
        ParameterSpec.Builder p = ParameterSpec.builder(types.field(f), f.name());
        if (!f.anySetter()) {
            // The wire name, for readers of the source and for tools that read Jackson's annotations; the binder
            // does the reading and writing.
            p.addAnnotation(AnnotationSpec.builder(JSON_PROPERTY).addMember("value", "$S", f.wire()).build());
        }
        if (f.experimental()) {
            p.addAnnotation(EXPERIMENTAL);
        }
        if (f.deprecated()) {
            p.addAnnotation(Deprecated.class);
        }
        return p.build();
    }

    static List<String> paramTags(List<Field> fields) {
        List<String> tags = new ArrayList<>();
        for (Field f : fields) {
            String d = Docs.inline(Docs.clean(f.doc()));
            if (d.isEmpty()) {
                d = f.anySetter() ? "" : "The schema gives no description of {@code " + Docs.escape(f.wire()) + "}.";
            }
            tags.add("@param " + f.name() + " " + (d.isEmpty() ? "" : d + " ") + qualifier(f));
        }
        return tags;
    }

    static String qualifier(Field f) {
        List<String> q = new ArrayList<>();
        if (f.anySetter()) {
            return "Members not declared by the schema, kept as read (every member not listed above).";
        }
        if (f.tristate()) {
            q.add("absent, {@code null} and a value are distinct");
        } else if (f.required() && f.nullable()) {
            q.add("required, nullable: always written, {@code null} included");
        } else if (f.required()) {
            q.add("required");
        } else {
            q.add("optional");
        }
        if (f.dflt() != null && !f.dflt().isNull()) {
            q.add("default {@code " + f.dflt().toString().replace("@", "&#64;").replace("*/", "*&#47;")
                    .replace("{", "&#123;").replace("}", "&#125;").replace("\\", "&#92;") + "}");
        }
        if (f.alias() != null) {
            q.add("schema type {@code " + f.alias() + "}");
        }
        if (f.experimental()) {
            q.add("experimental");
        }
        return "(" + String.join("; ", q) + ")";
    }

    /**
     * A {@code toString()} in the record's default format, for records where the default would print what must
     * not reach a log: credentials print {@code [REDACTED]}, members kept beyond the schema print their shape.
     * Null for every other record.
     */
    static MethodSpec toStringMethod(String simpleName, List<Field> fields, boolean unknowns) {
        if (fields.stream().noneMatch(f -> f.secret() || f.anySetter())) {
            return null;
        }
        CodeBlock.Builder expr = CodeBlock.builder().add("return $S", simpleName + "[");
        List<Field> all = new ArrayList<>(fields);
        for (int i = 0; i < all.size(); i++) {
            Field f = all.get(i);
            String label = (i == 0 ? "" : ", ") + f.name() + "=";
            CodeBlock value;
            if (f.anySetter()) {
                value = CodeBlock.of("$T.shape($N)", SUPPORT, f.name());
            } else if (!f.secret()) {
                value = CodeBlock.of("$N", f.name());
            } else if (f.primitive()) {
                value = CodeBlock.of("$S", REDACTED);
            } else if (f.tristate()) {
                value = CodeBlock.of("($N == null || !$N.isPresent() ? String.valueOf($N) : $S)", f.name(), f.name(),
                        f.name(), REDACTED);
            } else {
                value = CodeBlock.of("($N == null ? \"null\" : $S)", f.name(), REDACTED);
            }
            expr.add("\n        + $S + $L", label, value);
        }
        if (unknowns) {
            expr.add("\n        + $S + unknownMembers", ", unknownMembers=");
        }
        expr.add("\n        + \"]\"");
        return MethodSpec.methodBuilder("toString")
                .addJavadoc("Prints like the record default, but credentials as {@code $L} and members beyond the schema by\n"
                        + "their shape only.\n\n@return the text\n", REDACTED)
                .addAnnotation(Override.class)
                .addModifiers(Modifier.PUBLIC)
                .returns(String.class)
                .addStatement("$L", expr.build())
                .build();
    }

    private void builder(TypeSpec.Builder rec, ClassName self, List<Field> fields, boolean unknowns) {
        ClassName bt = self.nestedClass("Builder");
        rec.addMethod(MethodSpec.methodBuilder("builder")
                .addJavadoc("Returns a builder; required components must be set before {@link Builder#build()}.\n\n"
                        + "@return a new builder\n")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(bt)
                .addStatement("return new $T()", bt)
                .build());
        MethodSpec.Builder toBuilder = MethodSpec.methodBuilder("toBuilder")
                .addJavadoc("Returns a builder initialised with the components of this record, unknown members included.\n\n"
                        + "@return a new builder\n")
                .addModifiers(Modifier.PUBLIC)
                .returns(bt)
                .addStatement("$T b = new $T()", bt, bt);
        for (Field f : fields) {
            toBuilder.addStatement("b.$N = $N", f.name(), f.name());
            if (f.alwaysWrite() && f.nullable()) {
                toBuilder.addStatement("b.$NSet = true", f.name());
            }
        }
        if (unknowns) {
            toBuilder.addStatement("b.unknownMembers = unknownMembers");
        }
        rec.addMethod(toBuilder.addStatement("return b").build());

        TypeSpec.Builder b = TypeSpec.classBuilder(bt)
                .addJavadoc("Builds {@link $T}; unset optional components stay absent.\n", self)
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL);
        for (Field f : fields) {
            TypeName ty = f.primitive() ? types.of(f.ty(), false) : types.field(f);
            b.addField(FieldSpec.builder(ty, f.name(), Modifier.PRIVATE).build());
            if (f.alwaysWrite() && f.nullable()) {
                b.addField(FieldSpec.builder(TypeName.BOOLEAN, f.name() + "Set", Modifier.PRIVATE).build());
            }
        }
        if (unknowns) {
            b.addField(FieldSpec.builder(UNKNOWN_MEMBERS, "unknownMembers", Modifier.PRIVATE)
                    .initializer("$T.none()", UNKNOWN_MEMBERS).build());
        }
        b.addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        for (Field f : fields) {
            TypeName ty = f.primitive() ? types.of(f.ty(), true) : types.field(f);
            String doc = Docs.inline(Docs.clean(f.doc()));
            String head = "Sets {@code " + Docs.escape(f.wire()) + "}" + (doc.isEmpty() ? "." : ": " + doc);
            MethodSpec.Builder m = MethodSpec.methodBuilder(f.name())
                    .addJavadoc("$L", Docs.javadoc(head, List.of("@param value the value " + qualifier(f),
                            "@return this builder")))
                    .addModifiers(Modifier.PUBLIC)
                    .returns(bt)
                    .addParameter(ty, "value")
                    .addStatement("this.$N = value", f.name());
            if (f.deprecated()) {
                m.addAnnotation(Deprecated.class);
            }
            if (f.alwaysWrite() && f.nullable()) {
                m.addStatement("this.$NSet = true", f.name());
            }
            b.addMethod(m.addStatement("return this").build());
            if (f.tristate()) {
                TypeName vt = types.of(f.ty(), false);
                b.addMethod(MethodSpec.methodBuilder(f.name())
                        .addJavadoc("$L", Docs.javadoc("Sets {@code " + Docs.escape(f.wire())
                                        + "} to a value, or to {@code null} (which is sent).",
                                List.of("@param value the value, or null to send {@code null}", "@return this builder")))
                        .addModifiers(Modifier.PUBLIC)
                        .returns(bt)
                        .addParameter(vt, "value")
                        .addStatement("this.$N = value == null ? $T.ofNull() : $T.of(value)", f.name(), TRISTATE, TRISTATE)
                        .addStatement("return this")
                        .build());
            } else if (f.ty() instanceof ListOf l && (l.item() instanceof Named || l.item() instanceof Str)) {
                MethodSpec.Builder m2 = MethodSpec.methodBuilder(f.name())
                        .addJavadoc("$L", Docs.javadoc("Sets {@code " + Docs.escape(f.wire()) + "} from the given elements.",
                                List.of("@param values the elements", "@return this builder")))
                        .addModifiers(Modifier.PUBLIC)
                        .varargs(true)
                        .returns(bt)
                        .addParameter(com.palantir.javapoet.ArrayTypeName.of(types.of(l.item(), false)), "values")
                        .addStatement("return $N(new $T<>($T.asList(values)))", f.name(), ARRAY_LIST, ARRAYS);
                if (f.deprecated()) {
                    m2.addAnnotation(Deprecated.class);
                }
                b.addMethod(m2.build());
            }
        }
        MethodSpec.Builder build = MethodSpec.methodBuilder("build")
                .addJavadoc("Creates the record.\n\n@return the record\n@throws IllegalStateException if a required "
                        + "component was not set\n")
                .addModifiers(Modifier.PUBLIC)
                .returns(self);
        List<CodeBlock> checks = new ArrayList<>();
        for (Field f : fields) {
            if (f.alwaysWrite() && f.nullable()) {
                checks.add(CodeBlock.of("!$NSet", f.name()));
            } else if (f.required() && !f.tristate()) {
                checks.add(CodeBlock.of("$N == null", f.name()));
            }
        }
        int i = 0;
        if (!checks.isEmpty()) {
            build.addStatement("$T<$T> missing = new $T<>()", LIST, STRING, ARRAY_LIST);
            for (Field f : fields) {
                if ((f.alwaysWrite() && f.nullable()) || (f.required() && !f.tristate())) {
                    build.beginControlFlow("if ($L)", checks.get(i++)).addStatement("missing.add($S)", f.name())
                            .endControlFlow();
                }
            }
            build.beginControlFlow("if (!missing.isEmpty())")
                    .addStatement("throw new $T($S + String.join(\", \", missing))", ILLEGAL_STATE,
                            self.simpleName() + " is missing required component(s): ")
                    .endControlFlow();
        }
        List<CodeBlock> args = new ArrayList<>();
        for (Field f : fields) {
            args.add(f.tristate() ? CodeBlock.of("$N == null ? $T.absent() : $N", f.name(), TRISTATE, f.name())
                    : CodeBlock.of("$N", f.name()));
        }
        if (unknowns) {
            args.add(CodeBlock.of("unknownMembers"));
        }
        build.addStatement("return new $T($L)", self, CodeBlock.join(args, ", "));
        b.addMethod(build.build());
        rec.addType(b.build());
    }

    /** The type-level annotations of a generated top-level type: binder, experimental, deprecated. */
    static void typeAnnotations(TypeSpec.Builder b, Head h, Types types, boolean usesDeprecated) {
        b.addAnnotation(AnnotationSpec.builder(JSON_DESERIALIZE)
                .addMember("using", "$T.class", types.binder(h.schemaName())).build());
        b.addAnnotation(AnnotationSpec.builder(JSON_SERIALIZE)
                .addMember("using", "$T.class", types.binder(h.schemaName()).nestedClass("Ser")).build());
        if (h.experimental()) {
            b.addAnnotation(EXPERIMENTAL);
        }
        if (h.deprecated()) {
            b.addAnnotation(Deprecated.class);
        }
        if (usesDeprecated) {
            b.addAnnotation(AnnotationSpec.builder(SuppressWarnings.class).addMember("value", "$S", "deprecation")
                    .build());
        }
    }

    static List<String> deprecatedTag(String desc) {
        List<String> tags = new ArrayList<>();
        if (Docs.deprecated(desc)) {
            tags.add("@deprecated " + Docs.inline(Docs.escape(desc.strip().replaceFirst("^@deprecated\\s*", ""))));
        }
        return tags;
    }
}
