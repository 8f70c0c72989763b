package dev.codexclient;

import dev.codexclient.errors.CodexException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.session.TurnState;
import java.util.function.Function;

/** What the builder gives a runtime to make turn results with, for tests of the runtime's parts. */
public final class TestTurnResults {
    private TestTurnResults() {
    }

    /** {@return the results the client makes from a turn's end} */
    public static Function<TurnState.End, TurnResult> results() {
        Redactor redactor = new Redactor();
        return end -> new TurnResult(end.threadId(), end.turnId(), end.status(), end.turn(), end.finalText(),
                end.items(), end.usage(), end.tokens(), end.diff(), end.plan(), end.error(), end.deadlineExceeded(),
                end.stalled(), redactor);
    }

    /** {@return the failure a failed result reports} */
    public static Function<TurnResult, CodexException> failures() {
        return TurnResult::failure;
    }
}
