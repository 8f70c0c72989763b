package dev.codexclient.testkit.internal.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SlowExitReportTest {

    @Test
    void namesALiveNonDaemonThreadWithItsStackAndLeavesDaemonsOut() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch parked = new CountDownLatch(2);
        Runnable park = () -> {
            parked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread holder = new Thread(park, "holds-the-exit");
        Thread daemon = new Thread(park, "a-daemon");
        daemon.setDaemon(true);
        holder.start();
        daemon.start();
        try {
            assertThat(parked.await(30, TimeUnit.SECONDS)).isTrue();
            String report = SlowExitReport.report(Thread.getAllStackTraces(), 10);
            assertThat(report).startsWith("[slow exit] the test JVM is still exiting after 10 s");
            assertThat(report).contains("\"holds-the-exit\" ")
                    .contains("SlowExitReportTest.lambda$namesALiveNonDaemonThreadWithItsStackAndLeavesDaemonsOut");
            assertThat(report).doesNotContain("a-daemon");
        } finally {
            release.countDown();
            holder.join();
            daemon.join();
        }
    }
}
