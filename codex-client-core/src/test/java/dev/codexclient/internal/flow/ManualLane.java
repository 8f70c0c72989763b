package dev.codexclient.internal.flow;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** A serial executor whose tasks run when the test says: every assertion sees exactly what the offers allow. */
final class ManualLane implements Executor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
    }

    /** Runs the queued tasks, and those they queue, until none is left. */
    void run() {
        Runnable t;
        while ((t = tasks.poll()) != null) {
            t.run();
        }
    }
}
