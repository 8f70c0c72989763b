package dev.codexclient.examples.spring;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.protocol.ServerNotification;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Ask and stream. The client comes through an {@link ObjectProvider}, so the service also starts with
 * {@code codex.enabled=false} (the endpoints then answer 503) or {@code codex.lazy=true}.
 */
@RestController
public class AskController {

    /** What {@code POST /ask} takes. */
    public record Question(String prompt) {
    }

    /** What {@code POST /ask} returns. */
    public record Answer(String threadId, String status, String text) {
    }

    private final ObjectProvider<CodexClient> codex;

    /**
     * The controller.
     *
     * @param codex the client, when there is one
     */
    public AskController(ObjectProvider<CodexClient> codex) {
        this.codex = codex;
    }

    private CodexClient client() {
        CodexClient client = codex.getIfAvailable();
        if (client == null) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "codex is switched off");
        }
        return client;
    }

    /**
     * A new thread, one turn, its final text; never blocks a WebFlux thread (the async API all the way).
     *
     * @param question the prompt
     * @return the answer, once the turn ended
     */
    @PostMapping("/ask")
    public Mono<Answer> ask(@RequestBody Question question) {
        return Mono.fromFuture(() -> client().startThreadAsync()
                .thenCompose(thread -> thread.startTurnAsync(question.prompt()))
                .thenCompose(CodexTurn::result)
                .thenApply(r -> new Answer(r.threadId(), r.status().asString(), r.finalText())));
    }

    /**
     * The turn's text as it is written, as Server-Sent Events: {@code delta} events with the text, then one
     * {@code done} event with the turn's status, or one {@code error} event with what went wrong (the stream's
     * consumer can show it, rather than see a dropped connection). With {@code codex.publisher.overflow=
     * coalesce-deltas}, a client that reads slowly gets the same text in fewer, larger deltas.
     *
     * @param prompt the prompt
     * @return the events
     */
    @GetMapping(path = "/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public Flux<ServerSentEvent<String>> stream(@RequestParam("prompt") String prompt) {
        return Mono.fromFuture(() -> client().startThreadAsync()
                        .thenCompose(thread -> thread.startTurnAsync(prompt)))
                .flatMapMany(turn -> JdkFlowAdapter.flowPublisherToFlux(turn.publisher()))
                .<ServerSentEvent<String>>handle((event, sink) -> {
                    if (event instanceof ServerNotification.ItemAgentMessageDelta delta) {
                        sink.next(ServerSentEvent.builder(delta.params().delta()).event("delta").build());
                    } else if (event instanceof ServerNotification.TurnCompleted completed) {
                        sink.next(ServerSentEvent.builder(completed.params().turn().status().asString())
                                .event("done").build());
                    }
                })
                .onErrorResume(e -> Mono.just(ServerSentEvent.builder(String.valueOf(e.getMessage()))
                        .event("error").build()));
    }
}
