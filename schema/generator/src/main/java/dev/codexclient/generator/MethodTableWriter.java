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
import com.palantir.javapoet.TypeVariableName;
import com.palantir.javapoet.WildcardTypeName;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.lang.model.element.Modifier;

/** Writes the descriptor tables ({@code *Methods}) of the method unions and the {@code ClientRequestApi} facade. */
final class MethodTableWriter {
    private final Generator g;
    private final Types types;

    MethodTableWriter(Generator g, Types types) {
        this.g = g;
        this.types = types;
    }

    private static AnnotationSpec suppressDeprecation() {
        return AnnotationSpec.builder(SuppressWarnings.class).addMember("value", "$S", "deprecation").build();
    }

    private TypeName paramsType(MethodDecl d) {
        return d.paramsType() == null ? ClassName.get(Void.class) : types.named(d.paramsType());
    }

    TypeSpec table(String union, List<MethodDecl> decls) {
        boolean request = union.endsWith("Request");
        ClassName self = ClassName.get(PKG, union + "Methods");
        TypeName wild = request
                ? ParameterizedTypeName.get(METHOD_DESCRIPTOR, WildcardTypeName.subtypeOf(Object.class),
                WildcardTypeName.subtypeOf(Object.class))
                : ParameterizedTypeName.get(NOTIFICATION_DESCRIPTOR, WildcardTypeName.subtypeOf(Object.class));
        TypeSpec.Builder b = TypeSpec.classBuilder(self)
                .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addAnnotation(suppressDeprecation())
                .addJavadoc("Typed descriptors of every {@link $T} method, in schema order.\n", types.named(union));
        List<CodeBlock> all = new ArrayList<>();
        for (MethodDecl d : decls) {
            TypeName p = paramsType(d);
            String dt = Docs.clean(d.doc());
            String head = (dt == null ? "" : dt + "\n\n") + "{@code " + d.method() + "}: params {@link "
                    + (d.paramsType() == null ? "Void" : types.named(d.paramsType()).simpleName()) + "}"
                    + (request ? ", result {@link " + types.named(d.responseType()).simpleName() + "}" : "")
                    + (d.paramsKind() == ParamsKind.OPTIONAL ? "; params may be omitted" : "") + "."
                    + since(d);
            FieldSpec.Builder f;
            if (union.equals("ClientRequest")) {
                // The same instance the facade uses, from its holder (see descriptors()).
                f = FieldSpec.builder(ParameterizedTypeName.get(METHOD_DESCRIPTOR, p, types.named(d.responseType())),
                                d.constant(), Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                        .initializer("$T.$L", holder(d), HOLDER_FIELD);
            } else if (request) {
                f = FieldSpec.builder(ParameterizedTypeName.get(METHOD_DESCRIPTOR, p, types.named(d.responseType())),
                                d.constant(), Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                        .initializer(requestDescriptor(d));
            } else {
                f = FieldSpec.builder(ParameterizedTypeName.get(NOTIFICATION_DESCRIPTOR, p), d.constant(),
                                Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                        .initializer("new $T<>($S, $T.class, $T.$L, $L, $L)", NOTIFICATION_DESCRIPTOR, d.method(),
                                p, PARAMS_PRESENCE, d.paramsKind().name(), d.experimental(), versions(d));
            }
            f.addJavadoc("$L", Docs.javadoc(head, RecordWriter.deprecatedTag(Docs.strip(d.doc()))));
            if (d.experimental()) {
                f.addAnnotation(EXPERIMENTAL);
            }
            if (d.deprecated()) {
                f.addAnnotation(Deprecated.class);
            }
            b.addField(f.build());
            all.add(CodeBlock.of("$N", d.constant()));
        }
        b.addField(FieldSpec.builder(ParameterizedTypeName.get(LIST, wild), "ALL", Modifier.PUBLIC, Modifier.STATIC,
                        Modifier.FINAL)
                .addJavadoc("Every method, in schema order.\n")
                .initializer("$T.of(\n$>$>$L$<$<)", LIST, CodeBlock.join(all, ",\n"))
                .build());
        b.addField(FieldSpec.builder(ParameterizedTypeName.get(MAP, STRING, wild), "BY_METHOD", Modifier.PRIVATE,
                Modifier.STATIC, Modifier.FINAL).initializer("new $T<>()", LINKED_HASH_MAP).build());
        b.addStaticBlock(CodeBlock.builder()
                .beginControlFlow("for ($T d : ALL)", wild)
                .addStatement("BY_METHOD.put(d.method(), d)")
                .endControlFlow()
                .build());
        b.addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        b.addMethod(MethodSpec.methodBuilder("byMethod")
                .addJavadoc("The descriptor of a wire method name, if this version of the SDK knows it.\n\n"
                        + "@param method the wire method name\n@return the descriptor, or empty\n")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(ParameterizedTypeName.get(OPTIONAL, wild))
                .addParameter(STRING, "method")
                .addStatement("return $T.ofNullable(BY_METHOD.get(method))", OPTIONAL)
                .build());
        return b.build();
    }

    private static final ClassName HOLDERS = ClassName.get(PKG, "ClientRequestDescriptors");
    private static final String HOLDER_FIELD = "DESCRIPTOR";

    private CodeBlock requestDescriptor(MethodDecl d) {
        return CodeBlock.of("new $T<>($S, $T.class, $T.class, $T.$L, $L, $L)", METHOD_DESCRIPTOR, d.method(),
                paramsType(d), types.named(d.responseType()), PARAMS_PRESENCE, d.paramsKind().name(),
                d.experimental(), versions(d));
    }

    /** The versions of a method as code: from(first), range(first, last), of(each, ...) or unrecorded(). */
    private CodeBlock versions(MethodDecl d) {
        if (d.versions() == null) {
            return CodeBlock.of("$T.unrecorded()", METHOD_VERSIONS);
        }
        List<String> all = g.versionTable().versions();
        List<String> v = d.versions();
        int first = all.indexOf(v.get(0));
        int last = all.indexOf(v.get(v.size() - 1));
        if (last - first + 1 == v.size() && v.size() > 1) {
            return last == all.size() - 1 ? CodeBlock.of("$T.from($S)", METHOD_VERSIONS, v.get(0))
                    : CodeBlock.of("$T.range($S, $S)", METHOD_VERSIONS, v.get(0), v.get(v.size() - 1));
        }
        List<CodeBlock> each = new ArrayList<>();
        v.forEach(x -> each.add(CodeBlock.of("$S", x)));
        return CodeBlock.of("$T.of($L)", METHOD_VERSIONS, CodeBlock.join(each, ", "));
    }

    /** The Javadoc sentence on the versions of a method, with a leading blank line; empty when unrecorded. */
    private String since(MethodDecl d) {
        String text = Docs.versions(d.versions(), g.versionTable().versions());
        return text.isEmpty() ? "" : "\n\n" + text;
    }

    /** The checked versions, for {@code MethodVersions}. */
    TypeSpec checkedVersions() {
        List<CodeBlock> each = new ArrayList<>();
        g.versionTable().versions().forEach(v -> each.add(CodeBlock.of("$S", v)));
        return TypeSpec.classBuilder("CheckedVersions")
                .addModifiers(Modifier.FINAL)
                .addJavadoc("The codex versions whose methods the generator read ({@code schema/methods}), oldest "
                        + "first: what\n{@link MethodVersions} indexes.\n")
                .addField(FieldSpec.builder(ParameterizedTypeName.get(LIST, STRING), "ALL", Modifier.STATIC,
                                Modifier.FINAL)
                        .initializer("$T.of($L)", LIST, CodeBlock.join(each, ", "))
                        .build())
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build())
                .build();
    }

    private static ClassName holder(MethodDecl d) {
        return HOLDERS.nestedClass(d.variant());
    }

    /**
     * The client requests' descriptors, each in a holder class of its own. A descriptor names its params and
     * result classes, and naming a class loads it: a table that creates every descriptor at once loads some 370
     * protocol classes, and the facade would do so on a client's first call. Through the holders, a call loads
     * its own method's types only.
     */
    TypeSpec descriptors(List<MethodDecl> decls) {
        TypeSpec.Builder b = TypeSpec.classBuilder(HOLDERS)
                .addModifiers(Modifier.FINAL)
                .addAnnotation(suppressDeprecation())
                .addJavadoc("The {@link ClientRequestMethods} descriptors, one holder class each, so that using one "
                        + "loads only its own\nparams and result types.\n");
        for (MethodDecl d : decls) {
            b.addType(TypeSpec.classBuilder(holder(d))
                    .addModifiers(Modifier.STATIC, Modifier.FINAL)
                    .addField(FieldSpec.builder(ParameterizedTypeName.get(METHOD_DESCRIPTOR, paramsType(d),
                                    types.named(d.responseType())), HOLDER_FIELD, Modifier.STATIC, Modifier.FINAL)
                            .initializer(requestDescriptor(d))
                            .build())
                    .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build())
                    .build());
        }
        b.addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        return b.build();
    }

    /**
     * The table of root binders: for each type a message is read into at its root (the server notification union
     * and every client request's result), its generated binder, found by a switch on the class name. The decoder
     * gets its binders here instead of through Jackson's look-up, which introspects each type's annotations on its
     * first message; only the binder asked for is loaded.
     */
    TypeSpec binders(List<MethodDecl> clientRequests, String notificationUnion) {
        ClassName deserializer = ClassName.get("com.fasterxml.jackson.databind", "JsonDeserializer");
        Set<String> roots = new TreeSet<>();
        roots.add(notificationUnion);
        for (MethodDecl d : clientRequests) {
            roots.add(d.responseType());
        }
        CodeBlock.Builder cases = CodeBlock.builder().beginControlFlow("switch (name)");
        for (String root : roots) {
            cases.addStatement("case $S: return new $T()", types.named(root).canonicalName(), types.binder(root));
        }
        cases.addStatement("default: return null").endControlFlow();
        return TypeSpec.classBuilder("ProtocolBinders")
                .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addAnnotation(suppressDeprecation())
                .addJavadoc("The generated binders of the types a message is read into at its root: {@link $L} "
                        + "and the result of\nevery client request. A decoder takes them from here, without "
                        + "Jackson's look-up of a type's\nannotations on its first message.\n",
                        types.named(notificationUnion).simpleName())
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build())
                .addMethod(MethodSpec.methodBuilder("rootBinder")
                        .addJavadoc("A new instance of the generated binder of a root type; binders are stateless, "
                                + "so one instance can serve\nevery message.\n\n"
                                + "@param type a protocol type\n"
                                + "@return its binder, or {@code null} when {@code type} is not a root type of the "
                                + "protocol\n")
                        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                        .returns(ParameterizedTypeName.get(deserializer, WildcardTypeName.subtypeOf(Object.class)))
                        .addParameter(ParameterizedTypeName.get(ClassName.get(Class.class),
                                WildcardTypeName.subtypeOf(Object.class)), "type")
                        .addStatement("return ($T) newBinder(type.getName())",
                                ParameterizedTypeName.get(deserializer, WildcardTypeName.subtypeOf(Object.class)))
                        .build())
                .addMethod(MethodSpec.methodBuilder("newBinder")
                        .addJavadoc("Typed {@code Object}: a method returning a binder's supertype would make the "
                                + "class verifier load every\nbinder named here to check it, when this class is "
                                + "first used.\n")
                        .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                        .returns(Object.class)
                        .addParameter(String.class, "name")
                        .addCode(cases.build())
                        .build())
                .build();
    }

    TypeSpec facade(List<MethodDecl> decls) {
        ClassName self = ClassName.get(PKG, "ClientRequestApi");
        TypeVariableName p = TypeVariableName.get("P");
        TypeVariableName r = TypeVariableName.get("R");
        TypeSpec.Builder b = TypeSpec.interfaceBuilder(self)
                .addModifiers(Modifier.PUBLIC)
                .addAnnotation(suppressDeprecation())
                .addJavadoc("One typed method per client request of the protocol.\n\n"
                        + "An implementation provides {@link #call(MethodDescriptor, Object)}; every other method is a "
                        + "shortcut that\npasses the right descriptor from {@link ClientRequestMethods}.\n");
        b.addMethod(MethodSpec.methodBuilder("call")
                .addJavadoc("Sends a request and completes with its decoded result.\n\n"
                        + "@param method the method descriptor\n"
                        + "@param params the params, or {@code null} when the method has none or they are omitted\n"
                        + "@param <P> the params type\n@param <R> the result type\n@return the future result\n")
                .addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT)
                .addTypeVariable(p).addTypeVariable(r)
                .returns(ParameterizedTypeName.get(COMPLETABLE_FUTURE, r))
                .addParameter(ParameterizedTypeName.get(METHOD_DESCRIPTOR, p, r), "method")
                .addParameter(p, "params")
                .build());
        Set<String> seen = new TreeSet<>();
        seen.add("call");
        for (MethodDecl d : decls) {
            String m = Names.lowerCamel(d.variant());
            if (!seen.add(m)) {
                throw new GeneratorException("ClientRequestApi: method name collision on " + m);
            }
            String raw = Docs.strip(d.doc());
            if (raw == null && d.paramsType() != null) {
                raw = Docs.strip(g.defs().get(d.paramsType()).path("description").asText(null));
            }
            String dt = raw == null ? null : Docs.escape(raw);
            String head = (dt == null ? "" : dt + "\n\n") + "Sends {@code " + d.method() + "}." + since(d);
            TypeName ret = ParameterizedTypeName.get(COMPLETABLE_FUTURE, types.named(d.responseType()));
            List<String> tags = new ArrayList<>();
            tags.add("@return the future {@link " + types.named(d.responseType()).simpleName() + "}");
            tags.addAll(RecordWriter.deprecatedTag(Docs.strip(d.doc())));
            if (d.paramsKind() != ParamsKind.NONE) {
                List<String> t1 = new ArrayList<>();
                t1.add("@param params the params");
                t1.addAll(tags);
                MethodSpec.Builder mb = MethodSpec.methodBuilder(m)
                        .addJavadoc("$L", Docs.javadoc(head, t1))
                        .addModifiers(Modifier.PUBLIC, Modifier.DEFAULT)
                        .returns(ret)
                        .addParameter(types.named(d.paramsType()), "params")
                        .addStatement("return call($T.$L, params)", holder(d), HOLDER_FIELD);
                annotate(mb, d);
                b.addMethod(mb.build());
            }
            if (d.paramsKind() != ParamsKind.REQUIRED) {
                MethodSpec.Builder mb = MethodSpec.methodBuilder(m)
                        .addJavadoc("$L", Docs.javadoc(head + (d.paramsKind() == ParamsKind.OPTIONAL
                                ? " Params are omitted." : ""), tags))
                        .addModifiers(Modifier.PUBLIC, Modifier.DEFAULT)
                        .returns(ret)
                        .addStatement("return call($T.$L, null)", holder(d), HOLDER_FIELD);
                annotate(mb, d);
                b.addMethod(mb.build());
            }
        }
        return b.build();
    }

    private static void annotate(MethodSpec.Builder mb, MethodDecl d) {
        if (d.experimental()) {
            mb.addAnnotation(EXPERIMENTAL);
        }
        if (d.deprecated()) {
            mb.addAnnotation(Deprecated.class);
        }
    }
}
