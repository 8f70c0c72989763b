package dev.codexclient.errors;

/**
 * A {@link java.util.concurrent.Flow.Subscriber} of one of the client's publishers did not keep up: events kept
 * arriving beyond what it had requested, and they filled the subscription's buffer
 * ({@link dev.codexclient.CodexClientBuilder#publisherBufferSize(int)} events beyond the outstanding demand). The publisher does not slow the connection
 * down for one subscriber, nor drop events in silence: it ends that subscription with this exception (through
 * {@code onError}, which needs no demand) and lets go of the events it held. Other listeners and subscribers are not
 * affected.
 *
 * <p>Request more ({@code request(n)} ahead of what is consumed, as Reactor's {@code limitRate} and Kotlin's
 * {@code asFlow()} do), hand events off to a queue of your own, or raise the buffer size.
 */
public class CodexBackpressureException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** What the subscription was to, e.g. {@code "turn t1 of thread th1"}. */
    private final String source;
    /** How many events beyond the subscriber's demand the subscription could hold. */
    private final int bufferSize;

    /**
     * A subscription whose buffer overflowed.
     *
     * @param source     what the subscription was to (e.g. {@code "turn t1 of thread th1"})
     * @param bufferSize how many events beyond the subscriber's demand the subscription could hold
     */
    public CodexBackpressureException(String source, int bufferSize) {
        super("the subscriber to " + source + " did not keep up: " + bufferSize + " events arrived beyond what it "
                + "requested, which is the subscription's buffer size; the subscription ends here rather than drop "
                + "events or hold up the connection. Request ahead (e.g. Reactor's limitRate), raise "
                + "CodexClientBuilder#publisherBufferSize, or merge the text deltas a slow reader lets wait with "
                + "publisherOverflow(PublisherOverflow.COALESCE_DELTAS) (Spring: codex.publisher.overflow="
                + "coalesce-deltas)");
        this.source = source;
        this.bufferSize = bufferSize;
    }

    /**
     * What the subscription was to.
     *
     * @return e.g. {@code "turn t1 of thread th1"}, {@code "thread th1"} or {@code "the client's notifications"}
     */
    public String source() {
        return source;
    }

    /**
     * How many events beyond the subscriber's demand the subscription could hold when it overflowed.
     *
     * @return the subscription's buffer size ({@code CodexClientBuilder#publisherBufferSize})
     */
    public int bufferSize() {
        return bufferSize;
    }
}
