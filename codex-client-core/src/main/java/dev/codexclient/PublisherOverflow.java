package dev.codexclient;

/**
 * What a publisher subscription ({@link CodexTurn#publisher()}, {@link CodexThread#publisher()},
 * {@link CodexClient#publisher()}) does when its subscriber lags: when more live events wait beyond the
 * subscriber's outstanding demand than {@link CodexClientBuilder#publisherBufferSize(int)} allows. The connection is
 * never slowed down for a subscriber either way; set with {@link CodexClientBuilder#publisherOverflow}.
 */
public enum PublisherOverflow {
    /**
     * The subscription ends with a {@link dev.codexclient.errors.CodexBackpressureException}, at once (an error needs
     * no demand); the events that waited are let go. The default: a subscriber sees every event as the server sent
     * it, or learns that it fell behind.
     */
    FAIL,

    /**
     * While the subscriber lags, a streamed delta ({@code item/agentMessage/delta}, {@code item/plan/delta},
     * {@code item/reasoning/textDelta}, {@code item/reasoning/summaryTextDelta},
     * {@code item/commandExecution/outputDelta}, {@code item/fileChange/outputDelta}) that follows a waiting delta of
     * the same method and item is merged into it: one notification of the same method and type whose {@code delta}
     * is the two texts joined, so the text arrives whole in fewer, larger events. Only events beyond the outstanding
     * demand are merged (a subscriber that keeps up sees every delta as sent), never a replayed event, and never a
     * delta that carries members this SDK does not know (they could not be merged faithfully). When the waiting
     * events still exceed the buffer (events that are not deltas pile up), the subscription fails as with
     * {@link #FAIL}. The merged text is held in memory until the subscriber takes it.
     */
    COALESCE_DELTAS
}
