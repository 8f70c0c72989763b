package dev.codexclient.events;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls several listeners in turn; one that throws is logged and does not keep the next from its event. */
final class CompositeEventListener implements CodexEventListener {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(CompositeEventListener.class);
    }


    private final List<CodexEventListener> listeners;

    private CompositeEventListener(List<CodexEventListener> listeners) {
        this.listeners = listeners;
    }

    static CodexEventListener of(CodexEventListener... listeners) {
        List<CodexEventListener> all = List.of(listeners);
        all.forEach(l -> Objects.requireNonNull(l, "listener"));
        return all.size() == 1 ? all.get(0) : new CompositeEventListener(all);
    }

    private void each(Consumer<CodexEventListener> call) {
        for (CodexEventListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                Log.LOG.warn("event listener {} failed", listener.getClass().getName(), e);
            }
        }
    }

    @Override
    public void connectionOpened(ConnectionOpened event) {
        each(l -> l.connectionOpened(event));
    }

    @Override
    public void connectionClosed(ConnectionClosed event) {
        each(l -> l.connectionClosed(event));
    }

    @Override
    public void requestStarted(RequestStarted event) {
        each(l -> l.requestStarted(event));
    }

    @Override
    public void requestEnded(RequestEnded event) {
        each(l -> l.requestEnded(event));
    }

    @Override
    public void serverRequestHandled(ServerRequestHandled event) {
        each(l -> l.serverRequestHandled(event));
    }

    @Override
    public void turnStarted(TurnStarted event) {
        each(l -> l.turnStarted(event));
    }

    @Override
    public void turnEnded(TurnEnded event) {
        each(l -> l.turnEnded(event));
    }

    @Override
    public void disconnected(Disconnected event) {
        each(l -> l.disconnected(event));
    }

    @Override
    public void connectionRestored(ConnectionRestored event) {
        each(l -> l.connectionRestored(event));
    }

    @Override
    public void threadResumed(ThreadResumed event) {
        each(l -> l.threadResumed(event));
    }

    @Override
    public void threadNotResumed(ThreadNotResumed event) {
        each(l -> l.threadNotResumed(event));
    }

    @Override
    public void recoveryCompleted(RecoveryCompleted event) {
        each(l -> l.recoveryCompleted(event));
    }

    @Override
    public void recoveryGaveUp(RecoveryGaveUp event) {
        each(l -> l.recoveryGaveUp(event));
    }

    @Override
    public void extensionEvent(ExtensionEvent event) {
        each(l -> l.extensionEvent(event));
    }

    @Override
    public void poolMemberAdded(PoolMemberAdded event) {
        each(l -> l.poolMemberAdded(event));
    }

    @Override
    public void poolMemberRemoved(PoolMemberRemoved event) {
        each(l -> l.poolMemberRemoved(event));
    }

    @Override
    public void poolMemberEjected(PoolMemberEjected event) {
        each(l -> l.poolMemberEjected(event));
    }

    @Override
    public void poolMemberReadmitted(PoolMemberReadmitted event) {
        each(l -> l.poolMemberReadmitted(event));
    }

    @Override
    public void pooledThreadRecreated(PooledThreadRecreated event) {
        each(l -> l.pooledThreadRecreated(event));
    }
}
