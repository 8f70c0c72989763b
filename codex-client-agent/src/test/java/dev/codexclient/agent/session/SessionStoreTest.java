package dev.codexclient.agent.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class SessionStoreTest {
    @TempDir
    Path dir;

    private static final SessionEntry ENTRY = new SessionEntry("thread-1", "/work", "abc", "0.169.0");

    @Test
    void inMemoryStoresReplacesAndForgets() {
        roundTrip(SessionStore.inMemory());
    }

    @Test
    void aFileStoreKeepsEntriesAcrossInstances() {
        roundTrip(SessionStore.inDirectory(dir));
        SessionStore.inDirectory(dir).save("key/with:odd chars", ENTRY);
        assertThat(SessionStore.inDirectory(dir).load("key/with:odd chars")).contains(ENTRY);
    }

    @Test
    void aDamagedEntryIsTreatedAsAbsent() throws IOException {
        SessionStore store = SessionStore.inDirectory(dir);
        store.save("k", ENTRY);
        try (Stream<Path> files = Files.list(dir)) {
            Path entry = files.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
            Files.writeString(entry, "{\"key\":\"k\",\"threadId\":");
        }
        assertThat(store.load("k")).isEmpty();
        store.save("k", ENTRY);
        assertThat(store.load("k")).contains(ENTRY);
    }

    private static void roundTrip(SessionStore store) {
        assertThat(store.load("k")).isEmpty();
        store.save("k", ENTRY);
        assertThat(store.load("k")).contains(ENTRY);
        SessionEntry next = new SessionEntry("thread-2", "/work", "def", "");
        store.save("k", next);
        assertThat(store.load("k")).contains(next);
        store.remove("k");
        assertThat(store.load("k")).isEmpty();
    }

    /**
     * Two JVMs write one key over and over while this one reads it: every read sees a whole entry of one writer,
     * and no temporary file is left behind.
     */
    @Test
    @Timeout(120)
    void twoJvmsWritingOneDirectoryNeverTearAnEntry() throws Exception {
        Path shared = dir.resolve("store");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> writers = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            writers.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    SessionStoreWriter.class.getName(), shared.toString(), "shared", name, "300")
                    .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start());
        }
        ObjectMapper json = new ObjectMapper();
        SessionStore store = SessionStore.inDirectory(shared);
        Files.createDirectories(shared);
        int reads = 0;
        while (writers.stream().anyMatch(Process::isAlive)) {
            try (Stream<Path> files = Files.list(shared)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                    JsonNode node = json.readTree(Files.readAllBytes(f));
                    assertThat(node.path("threadId").asText()).matches("[ab]-\\d+");
                    assertThat(node.path("cwd").asText()).isEqualTo("/work/" + node.path("threadId").asText()
                            .charAt(0));
                    reads++;
                }
            }
            store.load("shared").ifPresent(e -> assertThat(e.fingerprint()).hasSize(64));
        }
        for (Process w : writers) {
            assertThat(w.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(w.exitValue()).isZero();
        }
        assertThat(store.load("shared")).hasValueSatisfying(e -> assertThat(e.threadId()).endsWith("-299"));
        try (Stream<Path> files = Files.list(shared)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .allMatch(n -> n.equals(".lock") || n.endsWith(".json"));
        }
        assertThat(reads).isPositive();
    }
}
