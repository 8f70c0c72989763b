package dev.codexclient.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class CodexServerRestartedExceptionTest {

    @Test
    void theMessageTellsOfTheRestartAndLeavesTheServersStderrToTheCause() {
        CodexTransportException lost = new CodexTransportException("the connection to codex ended: it exited",
                OptionalInt.of(137), "WARNING: proceeding, even though we could not update PATH", null);

        CodexServerRestartedException e = new CodexServerRestartedException("thr_1", "turn_2", lost);

        assertThat(e.getMessage())
                .contains("turn turn_2 of thread thr_1", "it exited", "start a new turn to retry")
                .doesNotContain("stderr", "WARNING");
        assertThat(e.getCause()).isSameAs(lost);
        assertThat(lost.getMessage()).contains("WARNING: proceeding");
        assertThat(e.stderrTail()).isEqualTo(lost.stderrTail());
        assertThat(e.exitCode()).hasValue(137);
    }
}
