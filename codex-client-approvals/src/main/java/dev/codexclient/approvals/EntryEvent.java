package dev.codexclient.approvals;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One line of an entry's history: what happened to it, when, and who did it.
 *
 * @param at     when
 * @param what   what happened, one word: {@code requested}, {@code decided}, {@code sent}, {@code refused} (a second
 *               decision), {@code withdrawn}, {@code expired}, {@code lost}, {@code released} (the client left a
 *               server of its own, which asks again), {@code replayed} (codex asked again and the entry answers
 *               it), {@code described} (codex described the item, e.g. the file changes)
 * @param by     who: the person who decided, or the inbox instance that acted; empty when codex did it
 * @param detail a sentence for a person
 */
public record EntryEvent(Instant at, String what, Optional<String> by, String detail) {
    /**
     * Checks every part is present.
     *
     * @param at     when
     * @param what   what happened
     * @param by     who
     * @param detail the sentence
     */
    public EntryEvent {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(detail, "detail");
    }
}
