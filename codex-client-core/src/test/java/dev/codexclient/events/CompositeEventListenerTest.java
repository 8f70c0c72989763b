package dev.codexclient.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.errors.CodexException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CompositeEventListenerTest {

    /** A new event method of the SPI that the composite does not forward would be lost without a word. */
    @Test
    void forwardsEveryEventOfTheSpi() {
        List<String> missing = Arrays.stream(CodexEventListener.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !declares(m))
                .map(Method::getName).toList();
        assertThat(missing).isEmpty();
    }

    @Test
    void theRecoveryEventsReachEachListenerInTurnEvenAfterOneThrows() {
        List<Object> seen = new CopyOnWriteArrayList<>();
        CodexEventListener throwing = new CodexEventListener() {
            @Override
            public void threadNotResumed(ThreadNotResumed event) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void recoveryCompleted(RecoveryCompleted event) {
                throw new IllegalStateException("listener bug");
            }
        };
        CodexEventListener recording = new CodexEventListener() {
            @Override
            public void threadNotResumed(ThreadNotResumed event) {
                seen.add(event);
            }

            @Override
            public void recoveryCompleted(RecoveryCompleted event) {
                seen.add(event);
            }
        };
        CodexEventListener composite = CodexEventListener.composite(throwing, recording);
        ThreadNotResumed notResumed = new ThreadNotResumed("thr_1", new CodexException("thread not found"));
        RecoveryCompleted completed = new RecoveryCompleted(2, 7, 1, Duration.ofMillis(350));

        composite.threadNotResumed(notResumed);
        composite.recoveryCompleted(completed);

        assertThat(seen).containsExactly(notResumed, completed);
    }

    private static boolean declares(Method m) {
        try {
            CompositeEventListener.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
