package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Transport} decorator that records every message of a session to a JSONL file, one line per message:
 * {@code {"dir":"sent"|"received","message":{…}}} (from the client's point of view; a line that was not JSON is
 * kept as {@code "raw"}). Turn a production incident into a regression test:
 * <pre>{@code
 * Transport recorded = WireRecorder.wrap(realTransport, Path.of("incident.jsonl"));
 * // ... later, in a test:
 * try (FakeCodexAppServer fake = FakeCodexAppServer.replay(Path.of("incident.jsonl"))) { ... }
 * }</pre>
 * Each line is flushed as it is written, so a crash loses nothing. The file may contain whatever the session
 * carried (prompts, file contents, tokens sent in requests): treat it like a log with sensitive content.
 */
public final class WireRecorder implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(WireRecorder.class);

    private final Transport delegate;
    private final Path file;
    private final BufferedWriter writer;
    private boolean writerClosed;

    private WireRecorder(Transport delegate, Path file) throws IOException {
        this.delegate = delegate;
        this.file = file;
        this.writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    }

    /**
     * Wraps {@code delegate}, recording to {@code file} (created or truncated).
     *
     * @param delegate the transport to record
     * @param file the JSONL file to write (created or truncated)
     * @return the recording transport
     * @throws UncheckedIOException when the file cannot be opened
     */
    public static WireRecorder wrap(Transport delegate, Path file) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(file, "file");
        try {
            return new WireRecorder(delegate, file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open recording file " + file, e);
        }
    }

    /** {@return the file being written} */
    public Path file() {
        return file;
    }

    @Override
    public void start(MessageSink sink) {
        Objects.requireNonNull(sink, "sink");
        delegate.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                for (int i = 0; i < messages.count(); i++) {
                    record("received", messages.copy(i));
                }
                sink.onMessages(messages);
            }

            @Override
            public void onOversizedMessage(long length) {
                ObjectNode line = Json.object().put("dir", "received").put("oversized", length);
                writeLine(line);
                sink.onOversizedMessage(length);
            }

            @Override
            public void onClosed(TransportTermination termination) {
                sink.onClosed(termination);
            }
        });
    }

    @Override
    public void send(byte[] message) {
        // Recorded before the send: the reply may arrive (and be recorded) before send() even returns, and the
        // file must show the request first.
        record("sent", message);
        delegate.send(message);
    }

    @Override
    public void close() {
        try {
            delegate.close();
        } finally {
            closeRecording();
        }
    }

    @Override
    public void close(Duration timeout) {
        try {
            delegate.close(timeout);
        } finally {
            closeRecording();
        }
    }

    /** The recorded transport's child process, if it runs one. */
    @Override
    public Optional<ProcessHandle> process() {
        return delegate.process();
    }

    private synchronized void closeRecording() {
        if (writerClosed) {
            return;
        }
        writerClosed = true;
        try {
            writer.close();
        } catch (IOException e) {
            LOG.warn("closing recording {} failed", file, e);
        }
    }

    /** The recorded transport's kind. */
    @Override
    public String kind() {
        return delegate.kind();
    }

    @Override
    public String describe() {
        return delegate.describe() + " (recorded to " + file + ")";
    }

    private void record(String dir, byte[] message) {
        ObjectNode line = Json.object().put("dir", dir);
        try {
            JsonNode parsed = Json.parse(message);
            line.set("message", parsed);
        } catch (IOException e) {
            line.put("raw", new String(message, StandardCharsets.UTF_8));
        }
        writeLine(line);
    }

    private synchronized void writeLine(ObjectNode line) {
        if (writerClosed) {
            return;
        }
        try {
            writer.write(line.toString());
            writer.write('\n');
            writer.flush();
        } catch (IOException e) {
            // Recording is a diagnostic aid: a full disk must not break the session it records.
            LOG.warn("writing recording {} failed", file, e);
        }
    }
}
