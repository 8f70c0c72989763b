package dev.codexclient.internal.rpc;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the connection logs about the wire: a redacted trace of every message on {@code dev.codexclient.wire} (at
 * TRACE), and bad input from the peer, rate limited so a peer that writes garbage in a loop cannot flood the
 * application's logs.
 */
final class WireLog {
    /**
     * Resolved on first use: SLF4J looks up its provider on its first call. Only the logging backend knows whether
     * {@code dev.codexclient.wire} is at TRACE, so the first message's check is where a client that logs nothing
     * else resolves SLF4J; every later check is the backend's {@code isTraceEnabled} on a constant.
     */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(RpcConnection.class);
        static final Logger WIRE = LoggerFactory.getLogger("dev.codexclient.wire");
    }

    private static final int LOGGED_LINE_LIMIT = 2_000;
    private static final int WARN_ANOMALIES = 10;

    private final UnaryOperator<String> redactor;
    private final String peer;
    private final Map<String, AtomicLong> anomalies = new ConcurrentHashMap<>();

    WireLog(UnaryOperator<String> redactor, String peer) {
        this.redactor = redactor;
        this.peer = peer;
    }

    void trace(String direction, byte[] bytes) {
        trace(direction, bytes, 0, bytes.length);
    }

    void trace(String direction, byte[] bytes, int offset, int length) {
        if (Log.WIRE.isTraceEnabled()) {
            Log.WIRE.trace("{} {}", direction, redactor.apply(truncate(new String(bytes, offset, length,
                    StandardCharsets.UTF_8))));
        }
    }

    /**
     * Logs bad input from the peer: the first few of each kind at WARN, then only a count every thousand, the rest
     * at DEBUG.
     *
     * @param kind what is wrong, in the plural ("lines that are not JSON")
     * @param offset where the line starts in {@code bytes}
     * @param length the line's length
     */
    void anomaly(String kind, byte[] bytes, int offset, int length) {
        long n = anomalies.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        if (n <= WARN_ANOMALIES) {
            Log.LOG.warn("Skipping one of the {} from {}: {}", kind, peer, preview(bytes, offset, length));
            if (n == WARN_ANOMALIES) {
                Log.LOG.warn("{} {} from {}; further ones are logged at DEBUG with a count every 1000", n, kind, peer);
            }
        } else {
            if (n % 1000 == 0) {
                Log.LOG.warn("{} {} from {} so far", n, kind, peer);
            }
            Log.LOG.debug("Skipping one of the {} from {}: {}", kind, peer, preview(bytes, offset, length));
        }
    }

    private String preview(byte[] bytes, int offset, int length) {
        return redactor.apply(truncate(new String(bytes, offset, Math.min(length, LOGGED_LINE_LIMIT * 4),
                StandardCharsets.UTF_8)));
    }

    static String truncate(String s) {
        return s.length() <= LOGGED_LINE_LIMIT ? s
                : s.substring(0, LOGGED_LINE_LIMIT) + "… (" + s.length() + " chars)";
    }
}
