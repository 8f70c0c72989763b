package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.benchmarks.SoakLedger.Kill;
import dev.codexclient.benchmarks.SoakLedger.Outcome;
import dev.codexclient.benchmarks.SoakLedger.Sample;
import dev.codexclient.errors.CodexTransportException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger behind the soak's headline ("0 hung, 0 duplicates"), on a clock of the test's own, and the verdict the
 * report draws from it: each thing the soak must not see fails the run, and a clean run passes.
 */
class SoakLedgerTest {
    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    private final AtomicLong now = new AtomicLong(1_000);
    private final SoakLedger ledger = new SoakLedger(now::get, 1_000, 5);

    @Test
    void eachTurnCountsInTheMinuteItEndedAndTheMinutesAfterTheEndInTheLast() {
        ledger.ended(Outcome.COMPLETED, "w0-0", null);
        now.addAndGet(MINUTE - 1);
        ledger.ended(Outcome.COMPLETED, "w0-1", null);
        now.addAndGet(1);
        ledger.ended(Outcome.FAILED_TYPED, "w0-2", new CodexTransportException("lost"));
        now.addAndGet(10 * MINUTE);
        ledger.ended(Outcome.COMPLETED, "w0-3", null);

        assertThat(ledger.count(Outcome.COMPLETED, 1)).isEqualTo(2);
        assertThat(ledger.count(Outcome.FAILED_TYPED, 2)).isEqualTo(1);
        assertThat(ledger.count(Outcome.COMPLETED, 5)).isEqualTo(1);
        assertThat(ledger.total(Outcome.COMPLETED)).isEqualTo(3);
        assertThat(ledger.total(Outcome.HUNG)).isZero();
        assertThat(ledger.hung()).isEmpty();
    }

    @Test
    void hungAndUntypedTurnsAreCountedAndNamed() {
        ledger.ended(Outcome.HUNG, "w1-7 (turn t-9 never ended, thread th-1 on spawned-2)", null);
        now.addAndGet(2 * MINUTE);
        ledger.ended(Outcome.UNTYPED, "w2-3", new IllegalStateException("a bug"));

        assertThat(ledger.total(Outcome.HUNG)).isEqualTo(1);
        assertThat(ledger.count(Outcome.HUNG, 1)).isEqualTo(1);
        assertThat(ledger.hung()).containsExactly("w1-7 (turn t-9 never ended, thread th-1 on spawned-2)");
        assertThat(ledger.count(Outcome.UNTYPED, 3)).isEqualTo(1);
        assertThat(ledger.untyped()).singleElement().asString().contains("w2-3").contains("a bug");
    }

    @Test
    void aRequestAnsweredTwiceInATurnIsADuplicateAndSoIsOneAfterItsTurnEnded() {
        ledger.answered("th-1 t-1", "approval item-1");
        ledger.answered("th-1 t-1", "tool call-1");
        // The same item in another turn is another request.
        ledger.answered("th-1 t-2", "approval item-1");
        assertThat(ledger.totalDuplicates()).isZero();

        ledger.answered("th-1 t-1", "approval item-1");
        assertThat(ledger.totalDuplicates()).isEqualTo(1);

        ledger.turnEnded("th-1 t-1");
        now.addAndGet(MINUTE);
        ledger.answered("th-1 t-1", "tool call-2");
        assertThat(ledger.totalDuplicates()).isEqualTo(2);
        assertThat(ledger.duplicates(1)).isEqualTo(1);
        assertThat(ledger.duplicates(2)).isEqualTo(1);

        // The model's own count of a turn started twice.
        ledger.duplicate();
        assertThat(ledger.totalDuplicates()).isEqualTo(3);
    }

    @Test
    void theTurnsThatEndedAreKeptBoundedlyTheOldestForgotten() {
        ledger.turnEnded("th-0 t-0");
        for (int i = 1; i <= 256; i++) {
            ledger.turnEnded("th-" + i + " t-" + i);
        }
        // 256 turns ended since: the first is forgotten, so its late request is taken for a new turn's.
        ledger.answered("th-0 t-0", "approval item-1");
        ledger.answered("th-1 t-1", "approval item-1");
        assertThat(ledger.totalDuplicates()).isEqualTo(1);
    }

    // ------------------------------------------------------------------------------------------- the verdict

    private static Results report(SoakLedger ledger, SoakReport.End end, Path results) throws Exception {
        Results out = new Results(false);
        new SoakReport(out, results, SoakSettings.smoke()).add(ledger, end);
        return out;
    }

    private static final SoakReport.End CLEAN = new SoakReport.End(0, 0, 0, 34, 34, 19, 19);

    /** A three-minute ledger whose turns completed, with a kill the member came back from and flat samples. */
    private SoakLedger clean() {
        SoakLedger l = new SoakLedger(now::get, now.get(), 3);
        for (int m = 0; m <= 3; m++) {
            l.add(new Sample(m, 5.8, 44, 34, 3));
        }
        l.ended(Outcome.COMPLETED, "w0-0", null);
        l.killed(new Kill(60.1, "spawned-1", 900));
        return l;
    }

    @Test
    void aCleanRunPasses(@TempDir Path results) throws Exception {
        Results out = report(clean(), CLEAN, results);
        assertThat(out.failures()).isEmpty();
        assertThat(out.rows()).filteredOn(r -> r.measurement().contains("second half"))
                .extracting(BenchmarkRunner.Row::status).containsExactly("met", "met", "met");
    }

    @Test
    void eachThingTheSoakMustNotSeeFailsTheRun(@TempDir Path results) throws Exception {
        SoakLedger l = clean();
        l.ended(Outcome.HUNG, "w3-1 (never started)", null);
        l.ended(Outcome.UNTYPED, "w3-2", new IllegalStateException("a bug"));
        l.answered("th-1 t-1", "tool call-1");
        l.answered("th-1 t-1", "tool call-1");
        l.killed(new Kill(120.3, "spawned-2", -1));
        Results out = report(l, new SoakReport.End(1, 0, 2, 34, 35, 19, 21), results);
        assertThat(out.failures()).containsExactly("1 turns failed untyped", "1 turns hung", "1 duplicates",
                "1 killed members not serving again within 60 s",
                "3 server processes, child processes or client threads left after the close");
    }

    @Test
    void aGrowingResourceFailsTheRunAndSaysWhich(@TempDir Path results) throws Exception {
        SoakLedger l = new SoakLedger(now::get, now.get(), 3);
        for (int m = 0; m <= 3; m++) {
            l.add(new Sample(m, 5.8, 44 + 40 * m, 34, 3));
        }
        Results out = report(l, CLEAN, results);
        assertThat(out.failures()).singleElement().asString().startsWith("growth of the client's live threads: minutes 1–3");
        assertThat(out.rows()).filteredOn(r -> r.measurement().contains("second half"))
                .extracting(BenchmarkRunner.Row::status).containsExactly("met", "MISSED", "met");
    }
}
