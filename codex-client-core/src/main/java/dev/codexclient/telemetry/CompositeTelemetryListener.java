package dev.codexclient.telemetry;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls several listeners in turn; one that throws is logged and does not keep the next from its record. */
final class CompositeTelemetryListener implements CodexTelemetryListener {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(CompositeTelemetryListener.class);
    }


    private final List<CodexTelemetryListener> listeners;

    private CompositeTelemetryListener(List<CodexTelemetryListener> listeners) {
        this.listeners = listeners;
    }

    static CodexTelemetryListener of(CodexTelemetryListener... listeners) {
        List<CodexTelemetryListener> all = List.of(listeners);
        all.forEach(l -> Objects.requireNonNull(l, "listener"));
        return all.size() == 1 ? all.get(0) : new CompositeTelemetryListener(all);
    }

    private void each(Consumer<CodexTelemetryListener> call) {
        for (CodexTelemetryListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                Log.LOG.warn("telemetry listener {} failed", listener.getClass().getName(), e);
            }
        }
    }

    @Override
    public void connectionOpened(ConnectionOpened report) {
        each(l -> l.connectionOpened(report));
    }

    @Override
    public void connectionClosed(ConnectionClosed report) {
        each(l -> l.connectionClosed(report));
    }

    @Override
    public void requestStarted(RequestStarted report) {
        each(l -> l.requestStarted(report));
    }

    @Override
    public void requestEnded(RequestEnded report) {
        each(l -> l.requestEnded(report));
    }

    @Override
    public void serverRequestHandled(ServerRequestHandled report) {
        each(l -> l.serverRequestHandled(report));
    }

    @Override
    public void turnStarted(TurnStarted report) {
        each(l -> l.turnStarted(report));
    }

    @Override
    public void turnEnded(TurnEnded report) {
        each(l -> l.turnEnded(report));
    }

    @Override
    public void disconnected(Disconnected report) {
        each(l -> l.disconnected(report));
    }

    @Override
    public void connectionReplaced(ConnectionReplaced report) {
        each(l -> l.connectionReplaced(report));
    }

    @Override
    public void threadResumed(ThreadResumed report) {
        each(l -> l.threadResumed(report));
    }

    @Override
    public void threadNotResumed(ThreadNotResumed report) {
        each(l -> l.threadNotResumed(report));
    }

    @Override
    public void restartCompleted(RestartCompleted report) {
        each(l -> l.restartCompleted(report));
    }

    @Override
    public void restartGaveUp(RestartGaveUp report) {
        each(l -> l.restartGaveUp(report));
    }

    @Override
    public void extensionTelemetry(ExtensionTelemetry report) {
        each(l -> l.extensionTelemetry(report));
    }

    @Override
    public void poolMemberAdded(PoolMemberAdded report) {
        each(l -> l.poolMemberAdded(report));
    }

    @Override
    public void poolMemberRemoved(PoolMemberRemoved report) {
        each(l -> l.poolMemberRemoved(report));
    }

    @Override
    public void poolMemberEjected(PoolMemberEjected report) {
        each(l -> l.poolMemberEjected(report));
    }

    @Override
    public void poolMemberReadmitted(PoolMemberReadmitted report) {
        each(l -> l.poolMemberReadmitted(report));
    }

    @Override
    public void pooledThreadRecreated(PooledThreadRecreated report) {
        each(l -> l.pooledThreadRecreated(report));
    }

    @Override
    public void pooledThreadMoved(PooledThreadMoved report) {
        each(l -> l.pooledThreadMoved(report));
    }
}
