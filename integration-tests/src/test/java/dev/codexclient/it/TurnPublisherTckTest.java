package dev.codexclient.it;

import dev.codexclient.protocol.ServerNotification;
import java.util.concurrent.Flow;
import org.reactivestreams.tck.TestEnvironment;
import org.reactivestreams.tck.flow.FlowPublisherVerification;
import org.testng.annotations.AfterClass;

/**
 * The Reactive Streams TCK against {@link dev.codexclient.CodexTurn#publisher()}: a publisher of {@code n} events is
 * a turn of {@code n} events on the fake app-server (see {@link FlowFixture#turnOf(long)}); the failed publisher is
 * a failed turn. What the TCK skips, and why, is listed in docs/reactive-streams.md.
 */
public class TurnPublisherTckTest extends FlowPublisherVerification<ServerNotification> {
    private final FlowFixture fixture = new FlowFixture();

    public TurnPublisherTckTest() {
        super(TckSettings.environment(), TckSettings.GC_TIMEOUT_MILLIS);
    }

    @Override
    public Flow.Publisher<ServerNotification> createFlowPublisher(long elements) {
        return fixture.turnOf(elements).publisher();
    }

    @Override
    public Flow.Publisher<ServerNotification> createFailedFlowPublisher() {
        return fixture.failedTurnPublisher();
    }

    @AfterClass(alwaysRun = true)
    public void closeFixture() throws Exception {
        fixture.close();
    }
}
