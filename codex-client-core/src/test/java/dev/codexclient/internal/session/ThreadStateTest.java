package dev.codexclient.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.UnknownMembers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a thread's state routes the events of a turn that is starting: held, within a bound, while its
 * {@code turn/start} response is out; routed to the turn as soon as the response is in, whether or not whoever
 * started the turn has claimed it yet.
 */
class ThreadStateTest {
    private static final String T = "t-1";
    private static final int KIB = 1024;

    private final SessionHarness.InlineExecutor executor = new SessionHarness.InlineExecutor();
    private final ThreadState state = new ThreadState(new Callbacks(executor), link(), 4 * KIB);

    @AfterEach
    void shutDown() {
        executor.shutdown();
    }

    @Test
    void eventsOfAnAnsweredTurnGoToItBeforeItIsClaimedAndNoneIsHeldAgainstTheBound() {
        // The reader thread has read the response; the thread that started the turn has not woken to claim it yet.
        StubTurn turn = answeredStart("u-1");
        for (int i = 0; i < 100; i++) {
            state.dispatch("u-1", delta("u-1", "d" + i), KIB);
        }

        assertThat(turn.accepted).hasSize(100);
        assertThat(turn.accepted.get(0)).isEqualTo("d0");
        assertThat(turn.accepted.get(99)).isEqualTo("d99");
        assertThat(turn.binds).isEqualTo(1);
        // The late claim finds the turn claimed: it does not bind it again.
        assertThat(state.claim(turn, "u-1")).isTrue();
        assertThat(turn.binds).isEqualTo(1);
    }

    @Test
    void aTurnEndedAfterTheLaneClaimedItIsNotRoutedToAgainByTheLateClaim() {
        StubTurn turn = answeredStart("u-1");
        state.dispatch("u-1", delta("u-1", "last"), KIB);
        state.turnEnded(turn);

        assertThat(state.claim(turn, "u-1")).isTrue();
        state.dispatch("u-1", delta("u-1", "after the end"), KIB);
        assertThat(turn.accepted).containsExactly("last");
    }

    @Test
    void eventsBeforeTheResponseAreHeldWithinTheBoundAndTheNewestGoToTheTurnFirst() {
        StubTurn turn = new StubTurn();
        state.starting(turn);
        for (int i = 0; i < 100; i++) {
            state.dispatch("u-1", delta("u-1", "d" + i), KIB);
        }
        assertThat(turn.accepted).isEmpty();

        turn.answered = "u-1";
        assertThat(state.claim(turn, "u-1")).isTrue();
        // 4 KiB hold 4 events of 1 KiB: the newest.
        assertThat(turn.early).containsExactly("d96", "d97", "d98", "d99");
    }

    @Test
    void anEventOfAnotherTurnIsHeldNotRoutedToTheAnsweredOne() {
        StubTurn turn = answeredStart("u-1");
        state.dispatch("u-other", delta("u-other", "not mine"), KIB);
        state.dispatch("u-1", delta("u-1", "mine"), KIB);

        assertThat(turn.accepted).containsExactly("mine");
        assertThat(turn.early).isEmpty();
    }

    /** A turn starting on the thread whose {@code turn/start} response, naming {@code turnId}, is in. */
    private StubTurn answeredStart(String turnId) {
        StubTurn turn = new StubTurn();
        assertThat(state.starting(turn)).isTrue();
        turn.answered = turnId;
        return turn;
    }

    private static ServerNotification delta(String turnId, String text) {
        return new ServerNotification.ItemAgentMessageDelta(null,
                new AgentMessageDeltaNotification(text, "item-1", T, turnId, UnknownMembers.none()));
    }

    private static ThreadLink link() {
        try {
            ThreadInfo info = ScriptedPeer.JSON.treeToValue(SessionHarness.thread(T, "idle"), ThreadInfo.class);
            return new ThreadLink(null, info, 0);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A turn that records what its thread's state hands it. */
    private static final class StubTurn implements RoutedTurn {
        volatile String answered;
        String bound;
        int binds;
        final List<String> early = new ArrayList<>();
        final List<String> accepted = new ArrayList<>();

        @Override
        public String threadId() {
            return T;
        }

        @Override
        public String boundId() {
            return bound;
        }

        @Override
        public String answeredId() {
            return answered;
        }

        @Override
        public boolean isDone() {
            return false;
        }

        @Override
        public void bind(String turnId, List<ThreadState.Held> held) {
            bound = turnId;
            binds++;
            held.forEach(h -> early.add(text(h.event())));
        }

        @Override
        public void deliverEarly() {
        }

        @Override
        public void accept(ServerNotification event, int bytes) {
            accepted.add(text(event));
        }

        @Override
        public void completeFromServer(Turn turn) {
        }

        @Override
        public void stall() {
        }

        @Override
        public void fail(Throwable cause) {
        }

        @Override
        public void interrupt() {
        }

        private static String text(ServerNotification n) {
            return ((ServerNotification.ItemAgentMessageDelta) n).params().delta();
        }
    }
}
