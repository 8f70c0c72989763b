package dev.codexclient.approvals.spring;

import dev.codexclient.Subscription;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxListener;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The entries as server-sent events, one stream per open page. The inbox tells its listeners on its own thread,
 * which must never wait for a browser: each stream has a queue, written out by a thread of a small pool, and a
 * stream whose browser does not keep up (its queue full) is ended, and the browser's {@code EventSource} connects
 * again and reads the entries afresh.
 */
final class InboxEvents {
    /** An open page opens its stream again after this; a stream is not held open for ever. */
    private static final long TIMEOUT_MILLIS = TimeUnit.MINUTES.toMillis(10);
    private static final int QUEUE_LIMIT = 1_000;

    private final ApprovalInbox inbox;
    private final ExecutorService writers = new ThreadPoolExecutor(0, 4, 30, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "codex-inbox-events");
                t.setDaemon(true);
                return t;
            });

    InboxEvents(ApprovalInbox inbox) {
        this.inbox = inbox;
    }

    SseEmitter open() {
        SseEmitter emitter = new SseEmitter(TIMEOUT_MILLIS);
        Stream stream = new Stream(emitter);
        Subscription s = inbox.subscribe(stream);
        stream.subscription = s;
        emitter.onCompletion(s::close);
        emitter.onTimeout(() -> {
            s.close();
            emitter.complete();
        });
        emitter.onError(e -> s.close());
        // A first comment, so that the browser knows the stream is open before the first change.
        stream.enqueue(SseEmitter.event().comment("open"));
        return emitter;
    }

    /** One page's stream. */
    private final class Stream implements InboxListener {
        private final SseEmitter emitter;
        private final Deque<SseEmitter.SseEventBuilder> queue = new ArrayDeque<>();
        private boolean writing;
        private boolean ended;
        volatile Subscription subscription;

        Stream(SseEmitter emitter) {
            this.emitter = emitter;
        }

        @Override
        public void changed(InboxEntry entry) {
            enqueue(SseEmitter.event().name("entry").id(entry.id() + ":" + entry.version())
                    .data(inbox.view(entry).toString(), MediaType.APPLICATION_JSON));
        }

        void enqueue(SseEmitter.SseEventBuilder event) {
            synchronized (this) {
                if (ended) {
                    return;
                }
                if (queue.size() >= QUEUE_LIMIT) {
                    end();
                    return;
                }
                queue.addLast(event);
                if (writing) {
                    return;
                }
                writing = true;
            }
            writers.execute(this::drain);
        }

        private void drain() {
            while (true) {
                SseEmitter.SseEventBuilder next;
                synchronized (this) {
                    next = queue.pollFirst();
                    if (next == null || ended) {
                        writing = false;
                        return;
                    }
                }
                try {
                    emitter.send(next);
                } catch (IOException | IllegalStateException e) {
                    synchronized (this) {
                        end();
                        writing = false;
                    }
                    return;
                }
            }
        }

        /** Holding the lock. */
        private void end() {
            ended = true;
            queue.clear();
            Subscription s = subscription;
            if (s != null) {
                s.close();
            }
            emitter.complete();
        }
    }
}
