package dev.codexclient.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.UnknownMembers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a thread's state, owned by the thread's delivery lane, routes the events of its turns: those of a turn whose
 * {@code turn/start} response is not taken yet are held, within a bound, and handed to the turn at its binding
 * ahead of every later one; after the binding they go straight to it. Each call here stands for a task of the lane,
 * in the lane's order.
 */
class ThreadStateTest {
    private static final String T = "t-1";
    private static final int KIB = 1024;

    private final ThreadState state = new ThreadState(link(), 4 * KIB);

    @Test
    void eventsBeforeTheBindingAreHeldAndHandedOverAtItAheadOfLaterOnes() {
        StubTurn turn = new StubTurn();
        state.starting(turn);
        state.dispatch("u-1", delta("u-1", "early 1"), KIB);
        state.dispatch("u-1", delta("u-1", "early 2"), KIB);
        assertThat(turn.seen).isEmpty();

        state.bind(turn, "u-1");
        assertThat(turn.seen).containsExactly("bound u-1", "early 1", "early 2");

        state.dispatch("u-1", delta("u-1", "late"), KIB);
        assertThat(turn.seen).containsExactly("bound u-1", "early 1", "early 2", "late");
    }

    @Test
    void theHoldIsBoundedInBytesAndKeepsTheNewest() {
        StubTurn turn = new StubTurn();
        state.starting(turn);
        for (int i = 0; i < 100; i++) {
            state.dispatch("u-1", delta("u-1", "d" + i), KIB);
        }

        state.bind(turn, "u-1");
        // 4 KiB hold 4 events of 1 KiB: the newest.
        assertThat(turn.seen).containsExactly("bound u-1", "d96", "d97", "d98", "d99");
    }

    @Test
    void afterTheBindingNothingIsHeldSoABurstOfAnySizeReachesTheTurnWhole() {
        StubTurn turn = new StubTurn();
        state.starting(turn);
        state.bind(turn, "u-1");
        for (int i = 0; i < 1_000; i++) {
            state.dispatch("u-1", delta("u-1", "d" + i), KIB);
        }

        assertThat(turn.seen).hasSize(1_001).startsWith("bound u-1", "d0").endsWith("d999");
    }

    @Test
    void anEventOfAnotherTurnIsNotRoutedToTheBoundOneAndIsDroppedWhenNoStartIsLeft() {
        StubTurn turn = new StubTurn();
        StubTurn other = new StubTurn();
        state.starting(turn);
        state.starting(other);
        state.dispatch("u-2", delta("u-2", "of the other"), KIB);
        state.bind(turn, "u-1");
        state.dispatch("u-1", delta("u-1", "mine"), KIB);
        assertThat(turn.seen).containsExactly("bound u-1", "mine");

        // The other start failed: what was held for a turn nobody starts goes.
        assertThat(state.remove(other)).isTrue();
        StubTurn third = new StubTurn();
        state.starting(third);
        state.bind(third, "u-2");
        assertThat(third.seen).containsExactly("bound u-2");
    }

    @Test
    void aTurnThatFailedBeforeItsResponseOnlyGetsItsIdAndIsNotRoutedTo() {
        StubTurn turn = new StubTurn();
        state.starting(turn);
        assertThat(state.remove(turn)).isTrue();

        state.bind(turn, "u-1");
        state.dispatch("u-1", delta("u-1", "after its failure"), KIB);
        assertThat(turn.seen).containsExactly("bound u-1");
        assertThat(state.runningTurns()).isZero();
    }

    @Test
    void anEndedTurnIsNotRoutedToAgainAndIsRemovedOnce() {
        StubTurn turn = new StubTurn();
        state.starting(turn);
        state.bind(turn, "u-1");
        assertThat(state.runningTurns()).isEqualTo(1);

        assertThat(state.remove(turn)).isTrue();
        assertThat(state.remove(turn)).isFalse();
        state.dispatch("u-1", delta("u-1", "after the end"), KIB);
        assertThat(turn.seen).containsExactly("bound u-1");
        assertThat(state.runningTurns()).isZero();
    }

    @Test
    void closingFailsTheTurnsStartingAndRunning() {
        StubTurn running = new StubTurn();
        StubTurn starting = new StubTurn();
        state.starting(running);
        state.bind(running, "u-1");
        state.starting(starting);

        state.close(new IllegalStateException("gone"));
        assertThat(running.seen).containsExactly("bound u-1", "failed gone");
        assertThat(starting.seen).containsExactly("failed gone");
        assertThat(state.runningTurns()).isZero();
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

    /** A turn that records what its thread's state hands it, in order. */
    private static final class StubTurn implements RoutedTurn {
        String bound;
        final List<String> seen = new ArrayList<>();

        @Override
        public String threadId() {
            return T;
        }

        @Override
        public String boundId() {
            return bound;
        }

        @Override
        public boolean isDone() {
            return false;
        }

        @Override
        public void bound(String turnId) {
            bound = turnId;
            seen.add("bound " + turnId);
        }

        @Override
        public void accept(ServerNotification event, int bytes) {
            seen.add(((ServerNotification.ItemAgentMessageDelta) event).params().delta());
        }

        @Override
        public void completeFromServer(Turn turn) {
        }

        @Override
        public void stall() {
        }

        @Override
        public void fail(Throwable cause) {
            seen.add("failed " + cause.getMessage());
        }

        @Override
        public void interrupt() {
        }
    }
}
