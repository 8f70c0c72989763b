package dev.codexclient.protocol;

import com.fasterxml.jackson.databind.cfg.ContextAttributes;
import java.util.Arrays;
import java.util.Map;

/**
 * The method, the tag of other unions, the thread, turn and item id and the timestamp one reader thread read last, so that a stream that names
 * the same ones in message after message (a million deltas of one item) gets the same {@code String} and
 * {@code Long} back instead of a new copy of each: less to allocate, and a string whose hash is already computed for
 * the {@code switch} on a tag and the maps that route by an id. Made by {@link ProtocolJson#reusingRepeatedValues};
 * the generated binders read those members through {@link BindingSupport#threadId} and its siblings.
 *
 * <p>The cache is the config's attributes ({@link ContextAttributes}, which it keeps as they were by passing every
 * call on to them): so that a binder finds it with two field reads and a type check
 * ({@code context.getConfig().getAttributes()}), where an attribute look-up would cost a hash map's for every
 * value. A config derived from it with other attributes simply has no cache.
 *
 * <p>A value is returned only when its characters (its number) equal what the parser holds, so a read returns what a
 * plain read would, equal and of the same type; only its identity can differ. Each kind keeps one value, the last,
 * and none longer than {@link #MAX_LENGTH} characters: the cache never grows. A value that changes costs a compare
 * of its characters and their copy into a buffer the cache already holds, beside the string made as before; a kind
 * whose value keeps changing rests a while ({@link #MISSES}, {@link #REST}), read the plain way.
 *
 * <p>The cache belongs to one thread, {@link #owner}: it is read and written without synchronisation, so on any
 * other thread {@link #isOwner()} is false and the binders take the plain path.
 */
final class RepeatedValues extends ContextAttributes {
    /** Longer strings are made fresh and not kept: an id is far shorter, and the cache must not hold a large text. */
    static final int MAX_LENGTH = 128;

    /**
     * After this many misses in a row a kind rests for {@link #REST} reads, which take the plain path: where a kind's
     * value changes with every message (each its own item), comparing and keeping it would cost more than it saves.
     */
    static final int MISSES = 4;
    static final int REST = 64;

    /** The kinds of string, each an index of the arrays below. */
    static final int METHOD = 0;
    static final int TAG = 1;
    static final int THREAD = 2;
    static final int TURN = 3;
    static final int ITEM = 4;
    private static final int KINDS = 5;

    private final ContextAttributes attributes;
    private final Thread owner;
    /** The characters of each kind's last string, in a buffer of {@link #MAX_LENGTH}; no string is -1. */
    private final char[][] chars = new char[KINDS][MAX_LENGTH];
    private final int[] lengths = {-1, -1, -1, -1, -1};
    /** Each kind's last string; null until its characters are seen a second time in a row. */
    private final String[] strings = new String[KINDS];
    /** Each kind's misses in a row, and the reads it takes the plain path for after {@link #MISSES} of them. */
    private final int[] misses = new int[KINDS];
    private final int[] resting = new int[KINDS];
    private long millis;
    /** {@link #millis} boxed, once seen a second time in a row; null otherwise. */
    private Long boxedMillis;

    RepeatedValues(ContextAttributes attributes, Thread owner) {
        this.attributes = attributes;
        this.owner = owner;
    }

    /**
     * Whether a read of {@code kind} is to compare and keep its value now; false while the kind rests after a run of
     * misses (the read then takes the plain path).
     */
    boolean keeps(int kind) {
        if (resting[kind] > 0) {
            resting[kind]--;
            return false;
        }
        return true;
    }

    /** Whether the current thread is the one this cache belongs to, the only one that may use it. */
    boolean isOwner() {
        return Thread.currentThread() == owner;
    }

    /**
     * The string of these characters: the last one of its kind when equal, else a new one. A new value's characters
     * are kept, and its string only when the same characters come again: keeping a new object in this long-lived
     * one costs a write barrier, which values that change with every message would pay for nothing.
     */
    String string(int kind, char[] text, int offset, int length) {
        char[] last = chars[kind];
        if (lengths[kind] == length && length > 0 && last[length - 1] == text[offset + length - 1]
                && Arrays.equals(last, 0, length, text, offset, offset + length)) {
            misses[kind] = 0;
            String kept = strings[kind];
            if (kept == null) {
                kept = new String(text, offset, length);
                strings[kind] = kept;
            }
            return kept;
        }
        if (length <= MAX_LENGTH) {
            System.arraycopy(text, offset, last, 0, length);
            lengths[kind] = length;
            strings[kind] = null;
        }
        if (++misses[kind] == MISSES) {
            misses[kind] = 0;
            resting[kind] = REST;
        }
        return new String(text, offset, length);
    }

    /** The boxed {@code value}: the last one when equal, else a new one; kept as {@link #string} keeps strings. */
    Long millis(long value) {
        if (value == millis) {
            Long kept = boxedMillis;
            if (kept == null) {
                kept = value;
                boxedMillis = kept;
            }
            return kept;
        }
        millis = value;
        boxedMillis = null;
        return value;
    }

    // ---- the attributes, as they were

    @Override
    public ContextAttributes withSharedAttribute(Object key, Object value) {
        return attributes.withSharedAttribute(key, value);
    }

    @Override
    public ContextAttributes withSharedAttributes(Map<?, ?> shared) {
        return attributes.withSharedAttributes(shared);
    }

    @Override
    public ContextAttributes withoutSharedAttribute(Object key) {
        return attributes.withoutSharedAttribute(key);
    }

    @Override
    public Object getAttribute(Object key) {
        return attributes.getAttribute(key);
    }

    @Override
    public ContextAttributes withPerCallAttribute(Object key, Object value) {
        return attributes.withPerCallAttribute(key, value);
    }
}
