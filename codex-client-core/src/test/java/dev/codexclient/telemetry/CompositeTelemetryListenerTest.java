package dev.codexclient.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.errors.CodexException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CompositeTelemetryListenerTest {

    /** A new event method of the SPI that the composite does not forward would be lost without a word. */
    @Test
    void forwardsEveryEventOfTheSpi() {
        List<String> missing = Arrays.stream(CodexTelemetryListener.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !declares(m))
                .map(Method::getName).toList();
        assertThat(missing).isEmpty();
    }

    @Test
    void theRecoveryEventsReachEachListenerInTurnEvenAfterOneThrows() {
        List<Object> seen = new CopyOnWriteArrayList<>();
        CodexTelemetryListener throwing = new CodexTelemetryListener() {
            @Override
            public void threadNotResumed(ThreadNotResumed event) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void restartCompleted(RestartCompleted event) {
                throw new IllegalStateException("listener bug");
            }
        };
        CodexTelemetryListener recording = new CodexTelemetryListener() {
            @Override
            public void threadNotResumed(ThreadNotResumed event) {
                seen.add(event);
            }

            @Override
            public void restartCompleted(RestartCompleted event) {
                seen.add(event);
            }
        };
        CodexTelemetryListener composite = CodexTelemetryListener.composite(throwing, recording);
        ThreadNotResumed notResumed = new ThreadNotResumed("thr_1", new CodexException("thread not found"));
        RestartCompleted completed = new RestartCompleted(2, 7, 1, Duration.ofMillis(350));

        composite.threadNotResumed(notResumed);
        composite.restartCompleted(completed);

        assertThat(seen).containsExactly(notResumed, completed);
    }

    private static boolean declares(Method m) {
        try {
            CompositeTelemetryListener.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
