package dev.codexclient.approvals.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.ApprovalKind;
import dev.codexclient.approvals.DecideResult;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxDecision;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxPage;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.InboxStoreException;
import java.io.IOException;
import java.security.Principal;
import java.util.Optional;
import java.util.stream.Collectors;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The inbox's REST API, under {@code codex.approvals.inbox.path} + {@code /api}:
 * <ul>
 *   <li>{@code GET /entries?state=&kind=&thread=&page=&size=}: a page of entries, newest first;</li>
 *   <li>{@code GET /entries/{id}}: one entry, its request in full and its history;</li>
 *   <li>{@code POST /entries/{id}/decision} with {@code {"decision": "accept"}}: decide. The decider is the
 *       authenticated user; a name in the body is ignored;</li>
 *   <li>{@code GET /events}: the entries as they change, as server-sent events named {@code entry}.</li>
 * </ul>
 * Every text from codex or the model is masked with the client's secrets. Errors are JSON with an {@code error}
 * message: 400 (a malformed decision, a filter of no value, a decision the request does not offer), 404 (no such
 * entry), 409 (the entry ended already: who ended it and when), 503 (the store cannot be reached: nothing recorded).
 *
 * <p>The JSON is written with the inbox's own Jackson 2 mapper, as text, whatever Jackson the application's
 * Spring MVC uses (Spring Boot 4.0's is Jackson 3).
 */
@RestController
@RequestMapping("${codex.approvals.inbox.path:/codex/approvals}/api")
public class InboxApiController {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType UTF8_JSON = new MediaType("application", "json",
            java.nio.charset.StandardCharsets.UTF_8);

    private final ApprovalInbox inbox;
    private final InboxEvents events;

    /**
     * The API of {@code inbox}.
     *
     * @param inbox the inbox
     */
    public InboxApiController(ApprovalInbox inbox) {
        this.inbox = inbox;
        this.events = new InboxEvents(inbox);
    }

    /**
     * A page of entries.
     *
     * @param state  only entries in this state
     * @param kind   only entries of this kind
     * @param thread only entries of this thread
     * @param page   the page, from 0
     * @param size   entries per page
     * @return the page
     */
    @GetMapping("/entries")
    public ResponseEntity<String> list(@RequestParam(name = "state") Optional<String> state,
                                       @RequestParam(name = "kind") Optional<String> kind,
                                       @RequestParam(name = "thread") Optional<String> thread,
                                       @RequestParam(name = "page", defaultValue = "0") int page,
                                       @RequestParam(name = "size", defaultValue = "50") int size) {
        InboxQuery q = InboxQuery.all();
        if (state.isPresent()) {
            q = q.withState(EntryState.named(state.get()).orElseThrow(() -> new BadRequest("no state is called '"
                    + state.get() + "'; the states are " + names(EntryState.values()))));
        }
        if (kind.isPresent()) {
            q = q.withKind(ApprovalKind.named(kind.get()).orElseThrow(() -> new BadRequest("no kind is called '"
                    + kind.get() + "'; the kinds are " + names(ApprovalKind.values()))));
        }
        if (thread.isPresent()) {
            q = q.withThread(thread.get());
        }
        if (page < 0 || size < 1 || size > InboxQuery.MAX_SIZE) {
            throw new BadRequest("page must be 0 or more and size 1 to " + InboxQuery.MAX_SIZE);
        }
        InboxPage p = inbox.list(q.page(page, size));
        ObjectNode out = JSON.createObjectNode();
        ArrayNode entries = out.putArray("entries");
        p.entries().forEach(e -> entries.add(inbox.view(e)));
        out.put("total", p.total()).put("page", p.page()).put("size", p.size());
        return json(HttpStatus.OK, out);
    }

    /**
     * One entry.
     *
     * @param id the entry's id
     * @return the entry
     */
    @GetMapping("/entries/{id}")
    public ResponseEntity<String> entry(@PathVariable("id") String id) {
        return inbox.entry(id).map(e -> json(HttpStatus.OK, inbox.view(e))).orElseThrow(() -> new NotFound(id));
    }

    /**
     * Decides entry {@code id} as the authenticated user.
     *
     * @param id        the entry
     * @param body      {@code {"decision": "accept"}}
     * @param principal the authenticated user: the decider
     * @return the entry as decided, or why not
     */
    @PostMapping(value = "/entries/{id}/decision")
    public ResponseEntity<String> decide(@PathVariable("id") String id, @RequestBody(required = false) String body,
                                         Principal principal) {
        InboxDecision decision = decision(body);
        DecideResult result = inbox.decide(id, decision, principal.getName());
        if (result instanceof DecideResult.Decided d) {
            return json(HttpStatus.OK, inbox.view(d.entry()));
        } else if (result instanceof DecideResult.AlreadyEnded ended) {
            InboxEntry e = ended.entry();
            ObjectNode err = error("the entry has ended already: " + e.state().name().toLowerCase(java.util.Locale.ROOT)
                    + e.decidedBy().map(b -> " by " + b).orElse("") + e.endedAt().map(t -> " at " + t).orElse(""));
            err.put("state", e.state().name());
            e.decidedBy().ifPresent(b -> err.put("decidedBy", b));
            e.endedAt().ifPresent(t -> err.put("endedAt", t.toString()));
            e.decision().ifPresent(d -> err.put("decision", d.wireName()));
            err.set("entry", inbox.view(e));
            return json(HttpStatus.CONFLICT, err);
        } else if (result instanceof DecideResult.NotOffered no) {
            throw new BadRequest("this request does not offer '" + decision.wireName() + "'; it offers "
                    + no.offered().stream().map(InboxDecision::wireName).collect(Collectors.joining(", ")));
        }
        throw new NotFound(id);
    }

    /**
     * The entries as they change, as server-sent events named {@code entry}, each an entry as {@code GET
     * /entries/{id}} gives it.
     *
     * @return the event stream
     */
    @GetMapping(value = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public SseEmitter events() {
        return events.open();
    }

    private static InboxDecision decision(String body) {
        if (body == null || body.isBlank()) {
            throw new BadRequest("a decision needs a body: {\"decision\": \"accept\"}");
        }
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (IOException e) {
            throw new BadRequest("the body is not JSON: {\"decision\": \"accept\"} is");
        }
        JsonNode d = json == null ? null : json.get("decision");
        if (d == null || !d.isTextual()) {
            throw new BadRequest("the body names no decision: {\"decision\": \"accept\"}");
        }
        return InboxDecision.named(d.textValue()).orElseThrow(() -> new BadRequest("no decision is called '"
                + d.textValue() + "'; the decisions are " + java.util.Arrays.stream(InboxDecision.values())
                .map(InboxDecision::wireName).collect(Collectors.joining(", "))));
    }

    /**
     * A 400 answer.
     *
     * @param e what was wrong
     * @return the answer
     */
    @ExceptionHandler(BadRequest.class)
    public ResponseEntity<String> badRequest(BadRequest e) {
        return json(HttpStatus.BAD_REQUEST, error(e.getMessage()));
    }

    /**
     * A 404 answer.
     *
     * @param e which entry
     * @return the answer
     */
    @ExceptionHandler(NotFound.class)
    public ResponseEntity<String> notFound(NotFound e) {
        return json(HttpStatus.NOT_FOUND, error(e.getMessage()));
    }

    /**
     * A 503 answer: the inbox fails closed while its store is away.
     *
     * @param e the store's failure
     * @return the answer
     */
    @ExceptionHandler(InboxStoreException.class)
    public ResponseEntity<String> storeDown(InboxStoreException e) {
        return json(HttpStatus.SERVICE_UNAVAILABLE, error("the inbox's store cannot be reached; nothing was "
                + "recorded: " + inbox.mask(String.valueOf(e.getMessage()))));
    }

    private static ObjectNode error(String message) {
        return JSON.createObjectNode().put("error", message);
    }

    private static ResponseEntity<String> json(HttpStatus status, JsonNode body) {
        return ResponseEntity.status(status).contentType(UTF8_JSON).body(body.toString());
    }

    private static String names(Enum<?>[] values) {
        return java.util.Arrays.stream(values).map(v -> v.name().toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.joining(", "));
    }

    /** A request the API cannot take: answered 400 with the message. */
    static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    /** No such entry: answered 404. */
    static final class NotFound extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotFound(String id) {
            super("no entry has the id '" + id + "'");
        }
    }
}
