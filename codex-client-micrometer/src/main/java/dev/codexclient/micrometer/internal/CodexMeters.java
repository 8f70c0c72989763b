package dev.codexclient.micrometer.internal;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PoolMemberEjected;
import dev.codexclient.telemetry.PoolMemberReadmitted;
import dev.codexclient.telemetry.PoolMemberRemoved;
import dev.codexclient.telemetry.PooledThreadRecreated;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.TokenCounts;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.micrometer.DefaultCodexTurnObservationConvention;
import dev.codexclient.micrometer.MicrometerTelemetryListener;
import dev.codexclient.protocol.ReviewDecision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of {@link MicrometerTelemetryListener} that are not observations: counters, gauges, and timers of what
 * the client reports only once it is over (server requests, handshakes), recorded with the durations the events
 * carry. The only class of this module that needs {@code micrometer-core}: it is loaded only for a listener given a
 * {@link MeterRegistry}.
 */
public final class CodexMeters {
    /** The gauges' values, one pair per registry: every listener on a registry adds to the same gauges. */
    private static final Map<MeterRegistry, Levels> LEVELS = new WeakHashMap<>();

    private final MeterRegistry registry;
    private final Levels levels;
    private final Counter inputTokens;
    private final Counter cachedInputTokens;
    private final Counter outputTokens;
    private final Counter reasoningOutputTokens;
    private final DistributionSummary inputUsage;
    private final DistributionSummary outputUsage;

    /** The two levels the gauges read. */
    private static final class Levels {
        final AtomicLong activeTurns = new AtomicLong();
        final AtomicLong openConnections = new AtomicLong();
        final AtomicLong poolMembers = new AtomicLong();
        /** By name: an ejected member removed from its pool is no longer counted as ejected. */
        final Set<String> ejected = ConcurrentHashMap.newKeySet();
    }

    /**
     * Meters on {@code registry}; registers the gauges on it once.
     *
     * @param registry where the meters go
     */
    public CodexMeters(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        synchronized (LEVELS) {
            Levels shared = LEVELS.get(registry);
            if (shared == null) {
                shared = new Levels();
                LEVELS.put(registry, shared);
                Gauge.builder(MicrometerTelemetryListener.ACTIVE_TURNS, shared.activeTurns, AtomicLong::get)
                        .description("Turns started and not yet ended").baseUnit("turns").strongReference(true)
                        .register(registry);
                Gauge.builder(MicrometerTelemetryListener.OPEN_CONNECTIONS, shared.openConnections, AtomicLong::get)
                        .description("Connections to a codex app-server that completed their handshake and are open")
                        .baseUnit("connections").strongReference(true).register(registry);
                Gauge.builder(MicrometerTelemetryListener.POOL_MEMBERS, shared.poolMembers, AtomicLong::get)
                        .description("Members of codex pools: app-servers added and not removed")
                        .baseUnit("members").strongReference(true).register(registry);
                Gauge.builder(MicrometerTelemetryListener.POOL_MEMBERS_EJECTED, shared.ejected, Set::size)
                        .description("Members of codex pools ejected for failing their health checks")
                        .baseUnit("members").strongReference(true).register(registry);
            }
            this.levels = shared;
        }
        this.inputTokens = tokens("input");
        this.cachedInputTokens = tokens("cached_input");
        this.outputTokens = tokens("output");
        this.reasoningOutputTokens = tokens("reasoning_output");
        this.inputUsage = usage("input");
        this.outputUsage = usage("output");
    }

    /** The GenAI convention's histogram of tokens per operation (a turn is an {@code invoke_agent}). */
    private DistributionSummary usage(String type) {
        return DistributionSummary.builder(MicrometerTelemetryListener.TOKEN_USAGE)
                .tag(DefaultCodexTurnObservationConvention.OPERATION_NAME, "invoke_agent")
                .tag(DefaultCodexTurnObservationConvention.PROVIDER_NAME, "openai")
                .tag(MicrometerTelemetryListener.GEN_AI_TOKEN_TYPE, type)
                .description("Tokens used per turn, by type (input, output)").baseUnit("{token}")
                .register(registry);
    }

    private Counter tokens(String type) {
        return Counter.builder(MicrometerTelemetryListener.TOKENS).tag(MicrometerTelemetryListener.TOKEN_TYPE, type)
                .description("Tokens spent by turns, by type (cached input is part of input, reasoning part of output)")
                .baseUnit("tokens").register(registry);
    }

    /**
     * A connection opened: one more open, and its handshake timed.
     *
     * @param event the event
     */
    public void connectionOpened(ConnectionOpened event) {
        levels.openConnections.incrementAndGet();
        Timer.builder(MicrometerTelemetryListener.HANDSHAKES).tag(MicrometerTelemetryListener.TRANSPORT, event.transport().name())
                .description("The initialize handshake with a codex app-server").register(registry)
                .record(event.handshake());
    }

    /**
     * A connection closed: one fewer open.
     *
     * @param event the event
     */
    public void connectionClosed(ConnectionClosed event) {
        levels.openConnections.decrementAndGet();
    }

    /** A turn started: one more active. */
    public void turnStarted() {
        levels.activeTurns.incrementAndGet();
    }

    /**
     * A turn ended: one fewer active, and the tokens it spent counted.
     *
     * @param event the event
     */
    public void turnEnded(TurnEnded event) {
        levels.activeTurns.decrementAndGet();
        event.turnTokens().ifPresent(this::count);
    }

    private void count(TokenCounts tokens) {
        inputTokens.increment(tokens.inputTokens());
        cachedInputTokens.increment(tokens.cachedInputTokens());
        outputTokens.increment(tokens.outputTokens());
        reasoningOutputTokens.increment(tokens.reasoningOutputTokens());
        inputUsage.record(tokens.inputTokens());
        outputUsage.record(tokens.outputTokens());
    }

    /**
     * A server request was handled: timed by method and outcome, and an approval counted by its decision.
     *
     * @param event the event
     */
    public void serverRequestHandled(ServerRequestHandled event) {
        String outcome = event.outcome().name().toLowerCase(Locale.ROOT);
        Timer.builder(MicrometerTelemetryListener.SERVER_REQUESTS)
                .tag(MicrometerTelemetryListener.METHOD, event.method())
                .tag(MicrometerTelemetryListener.OUTCOME, outcome)
                .description("Requests of the codex app-server to the client (approvals, tool calls, questions), "
                        + "from their arrival to the answer")
                .register(registry).record(event.handling());
        event.decision().ifPresent(d -> Counter.builder(MicrometerTelemetryListener.APPROVALS)
                .tag(MicrometerTelemetryListener.METHOD, event.method())
                .tag(MicrometerTelemetryListener.DECISION, decisionTag(d))
                .description("Approval requests answered, by decision")
                .register(registry).increment());
    }

    /**
     * A pool took a member in.
     *
     * @param event the event
     */
    public void poolMemberAdded(PoolMemberAdded event) {
        levels.poolMembers.incrementAndGet();
        change("added");
    }

    /**
     * A pool's member drains: one fewer, and no longer counted as ejected.
     *
     * @param event the event
     */
    public void poolMemberRemoved(PoolMemberRemoved event) {
        levels.poolMembers.decrementAndGet();
        levels.ejected.remove(event.member());
        change("removed");
    }

    /**
     * A pool's member was ejected.
     *
     * @param event the event
     */
    public void poolMemberEjected(PoolMemberEjected event) {
        levels.ejected.add(event.member());
        change("ejected");
    }

    /**
     * A pool's member was readmitted.
     *
     * @param event the event
     */
    public void poolMemberReadmitted(PoolMemberReadmitted event) {
        levels.ejected.remove(event.member());
        change("readmitted");
    }

    /**
     * A pooled thread was started again.
     *
     * @param event the event
     */
    public void pooledThreadRecreated(PooledThreadRecreated event) {
        Counter.builder(MicrometerTelemetryListener.POOL_THREADS_RECREATED)
                .description("Pooled threads without a turn started again on their member's restarted server")
                .baseUnit("threads").register(registry).increment();
    }

    private void change(String change) {
        Counter.builder(MicrometerTelemetryListener.POOL_MEMBER_CHANGES).tag(MicrometerTelemetryListener.CHANGE, change)
                .description("Changes of codex pools' members").baseUnit("changes").register(registry).increment();
    }

    /**
     * The tag value of a decision: {@code accept}, {@code accept_for_session}, {@code decline}, {@code cancel}, or
     * {@code other} (a protocol decision beyond the four, such as a partial permission grant).
     *
     * @param decision the decision
     * @return its tag value
     */
    public static String decisionTag(ApprovalDecision decision) {
        if (decision == ApprovalDecision.ACCEPT) {
            return "accept";
        } else if (decision == ApprovalDecision.ACCEPT_FOR_SESSION) {
            return "accept_for_session";
        } else if (decision == ApprovalDecision.DECLINE) {
            return "decline";
        } else if (decision == ApprovalDecision.CANCEL) {
            return "cancel";
        } else if (decision instanceof ApprovalDecision.Legacy legacy
                && legacy.decision() instanceof ReviewDecision.Denied) {
            return "decline";
        }
        return "other";
    }
}
