package dev.codexclient.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.internal.Redactor;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StderrTailTest {

    @Test
    void keepsTheLastLinesWithinTheLineBound() {
        StderrTail tail = new StderrTail(3, 10_000, new Redactor());
        for (int i = 1; i <= 10; i++) {
            tail.add("line " + i);
        }
        assertThat(tail.snapshot()).isEqualTo("line 8\nline 9\nline 10");
    }

    @Test
    void keepsTheLastBytesWithinTheByteBound() {
        StderrTail tail = new StderrTail(100, 64, new Redactor());
        for (int i = 0; i < 20; i++) {
            tail.add("0123456789-" + i);
        }
        String snap = tail.snapshot();
        assertThat(snap.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(64);
        assertThat(snap).endsWith("0123456789-19");
    }

    @Test
    void cutsAnOverlongLineFromTheStartKeepingItsEnd() {
        StderrTail tail = new StderrTail(5, 64, new Redactor());
        tail.add("é".repeat(100) + " the actual error");
        String snap = tail.snapshot();
        assertThat(snap).startsWith("...").endsWith("the actual error");
        assertThat(snap.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(64);
    }

    @Test
    void redactsOnSnapshot() {
        Redactor redactor = new Redactor();
        StderrTail tail = new StderrTail(5, 1000, redactor);
        tail.add("using key sk-abcdefghijklmnopqrstuvwx");
        tail.add("secret later-registered-secret");
        redactor.register("later-registered-secret");
        assertThat(tail.snapshot()).isEqualTo("using key [REDACTED]\nsecret [REDACTED]");
    }

    @Test
    void emptyWhenNothingWasWritten() {
        assertThat(new StderrTail(5, 100, new Redactor()).snapshot()).isEmpty();
    }
}
