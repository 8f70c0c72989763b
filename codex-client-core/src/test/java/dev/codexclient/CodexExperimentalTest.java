package dev.codexclient;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.Experimental;
import dev.codexclient.protocol.ThreadSearchParams;
import dev.codexclient.protocol.ThreadStartParams;
import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What follows codex's experimental API is marked {@link CodexExperimental}: every public method that takes or
 * returns a marked type is marked too, and what codex's own schema marks experimental is marked where the
 * hand-written API sends it.
 */
class CodexExperimentalTest {
    private static final Path API = Path.of("src/main/java/dev/codexclient");

    @Test
    void theAnnotationIsKeptInTheClassFilesAndAtRunTime() {
        assertThat(CodexClient.class.getMethods()).filteredOn(m -> m.getName().equals("searchThreads"))
                .isNotEmpty().allSatisfy(m -> assertThat(m.getAnnotation(CodexExperimental.class)).isNotNull());
    }

    @Test
    void everyPublicMethodThatTakesOrReturnsAMarkedTypeIsMarked() throws Exception {
        List<String> unmarked = new ArrayList<>();
        for (Class<?> type : publicApiTypes()) {
            if (marked(type) || type.getEnclosingClass() != null && marked(type.getEnclosingClass())) {
                continue;
            }
            List<Executable> members = new ArrayList<>(List.of(type.getDeclaredMethods()));
            members.addAll(List.of(type.getDeclaredConstructors()));
            for (Executable e : members) {
                if (!Modifier.isPublic(e.getModifiers()) || e.isSynthetic() || marked(e)) {
                    continue;
                }
                List<Type> types = new ArrayList<>(List.of(e.getGenericParameterTypes()));
                if (e instanceof Method m) {
                    types.add(m.getGenericReturnType());
                }
                if (types.stream().anyMatch(CodexExperimentalTest::mentionsMarked)) {
                    unmarked.add(type.getSimpleName() + "." + e.getName());
                }
            }
        }
        assertThat(unmarked).as("public members that take or return experimental API without saying so").isEmpty();
    }

    @Test
    void whatCodexMarksExperimentalIsMarkedWhereTheApiSendsIt() throws Exception {
        // Dynamic tools go out as thread/start's dynamicTools, which codex marks experimental.
        RecordComponent dynamicTools = Stream.of(ThreadStartParams.class.getRecordComponents())
                .filter(c -> c.getName().equals("dynamicTools")).findFirst().orElseThrow();
        assertThat(dynamicTools.getAnnotation(Experimental.class)).isNotNull();
        assertThat(marked(DynamicTool.class)).isTrue();
        assertThat(marked(CodexClientBuilder.class.getMethod("tool", DynamicTool.class))).isTrue();

        // The streamed search is thread/search/stream, an experimental method.
        assertThat(ClientRequestMethods.THREAD_SEARCH_STREAM.experimental()).isTrue();
        assertThat(marked(CodexClient.class.getMethod("searchThreads", String.class))).isTrue();
        assertThat(marked(CodexClient.class.getMethod("searchThreads", ThreadSearchParams.class))).isTrue();
        assertThat(marked(ThreadSearch.class)).isTrue();
    }

    private static boolean marked(AnnotatedElement e) {
        return e.isAnnotationPresent(CodexExperimental.class);
    }

    private static boolean mentionsMarked(Type t) {
        if (t instanceof Class<?> c) {
            return marked(c.isArray() ? c.getComponentType() : c);
        }
        if (t instanceof ParameterizedType p) {
            return mentionsMarked(p.getRawType()) || Stream.of(p.getActualTypeArguments())
                    .anyMatch(CodexExperimentalTest::mentionsMarked);
        }
        if (t instanceof WildcardType w) {
            return Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
                    .anyMatch(CodexExperimentalTest::mentionsMarked);
        }
        if (t instanceof GenericArrayType a) {
            return mentionsMarked(a.getGenericComponentType());
        }
        return false;
    }

    /** The public types of the exported packages, read from the sources (internal packages aside). */
    private static List<Class<?>> publicApiTypes() throws IOException, ClassNotFoundException {
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.walk(API)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String rel = API.relativize(f).toString().replace('\\', '/');
                if (rel.startsWith("internal/") || rel.endsWith("package-info.java")) {
                    continue;
                }
                String name = "dev.codexclient." + rel.substring(0, rel.length() - ".java".length())
                        .replace('/', '.');
                Class<?> c = Class.forName(name);
                if (Modifier.isPublic(c.getModifiers())) {
                    types.add(c);
                    for (Class<?> nested : c.getDeclaredClasses()) {
                        if (Modifier.isPublic(nested.getModifiers())) {
                            types.add(nested);
                        }
                    }
                }
            }
        }
        return types;
    }
}
