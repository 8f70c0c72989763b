package dev.codexclient;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.internal.schema.RecordSchemas;
import dev.codexclient.internal.session.ThreadLink;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.TurnStartParams;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * The {@link CodexThread} of a {@link CodexClient}: a view of the thread's engine, {@link ThreadLink}, which every
 * handle of a held thread shares. Each method is one call into the engine; their contracts are on the interface.
 */
final class ClientThread implements CodexThread {
    /** The thread's engine, which every handle of this thread shares while the client holds it. */
    private final ThreadLink link;
    private final String id;

    private ClientThread(ThreadLink link) {
        this.link = link;
        this.id = link.id();
    }

    /** The handle over {@code link}: the one made first, so a held thread has one handle object. */
    static CodexThread of(ThreadLink link) {
        return link.handle(new ClientThread(link));
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public ThreadInfo info() {
        return link.info();
    }

    // ------------------------------------------------------------------------------------------------ turns

    @Override
    public CodexTurn startTurn(TurnStartParams params) {
        return new CodexTurn(this, link.startTurn(params));
    }

    @Override
    public CompletableFuture<CodexTurn> startTurnAsync(TurnStartParams params) {
        return link.startTurnAsync(params).thenApply(state -> new CodexTurn(this, state));
    }

    @Override
    public <T> StructuredTurn<T> startTurn(TurnStartParams.Builder params, Class<T> outputType) {
        return structured(startTurn(withSchema(params, outputType)), outputType);
    }

    @Override
    public <T> CompletableFuture<StructuredTurn<T>> startTurnAsync(TurnStartParams.Builder params,
                                                                   Class<T> outputType) {
        return startTurnAsync(withSchema(params, outputType)).thenApply(t -> structured(t, outputType));
    }

    private static TurnStartParams withSchema(TurnStartParams.Builder params, Class<?> outputType) {
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(outputType, "outputType");
        ObjectNode schema = RecordSchemas.schemaOf(outputType);
        return params.outputSchema(schema).build();
    }

    private <T> StructuredTurn<T> structured(CodexTurn turn, Class<T> outputType) {
        return new StructuredTurn<>(turn, outputType, link.userMapper());
    }

    // ------------------------------------------------------------------------------------------------ thread ops
    // Each blocking form waits for the call itself and finishes on the calling thread; each async twin finishes in
    // a dependent of the call. So a blocking call needs nothing but the answer: no callback thread.

    @Override
    public ThreadInfo read() {
        return link.read();
    }

    @Override
    public CompletableFuture<ThreadInfo> readAsync() {
        return link.readAsync();
    }

    @Override
    public void setName(String name) {
        link.setName(name);
    }

    @Override
    public CompletableFuture<Void> setNameAsync(String name) {
        return link.setNameAsync(name);
    }

    @Override
    public void archive() {
        link.archive();
    }

    @Override
    public CompletableFuture<Void> archiveAsync() {
        return link.archiveAsync();
    }

    @Override
    public void unarchive() {
        link.unarchive();
    }

    @Override
    public CompletableFuture<Void> unarchiveAsync() {
        return link.unarchiveAsync();
    }

    @Override
    public ThreadInfo revertTo(String turnId) {
        return link.revertTo(turnId);
    }

    @Override
    public CompletableFuture<ThreadInfo> revertToAsync(String turnId) {
        return link.revertToAsync(turnId);
    }

    @Override
    public void compact() {
        link.compact();
    }

    @Override
    public CompletableFuture<Void> compactAsync() {
        return link.compactAsync();
    }

    @Override
    public CodexThread fork() {
        return of(link.fork());
    }

    @Override
    public CompletableFuture<CodexThread> forkAsync() {
        return link.forkAsync().thenApply(ClientThread::of);
    }

    @Override
    public void unsubscribe() {
        link.unsubscribe();
    }

    @Override
    public CompletableFuture<Void> unsubscribeAsync() {
        return link.unsubscribeAsync();
    }

    @Override
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        return link.subscribe(listener);
    }

    @Override
    public Flow.Publisher<ServerNotification> publisher() {
        return link.publisher();
    }

    /** Runs {@code task} on the thread's delivery lane, behind the events queued there; for test code. */
    void onLane(Runnable task) {
        link.onLane(task);
    }

    @Override
    public String toString() {
        return "CodexThread[" + id + "]";
    }
}
