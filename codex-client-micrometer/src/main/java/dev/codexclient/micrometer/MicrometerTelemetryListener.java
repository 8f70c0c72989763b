package dev.codexclient.micrometer;

import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PoolMemberEjected;
import dev.codexclient.telemetry.PoolMemberReadmitted;
import dev.codexclient.telemetry.PoolMemberRemoved;
import dev.codexclient.telemetry.PooledThreadRecreated;
import dev.codexclient.telemetry.RequestEnded;
import dev.codexclient.telemetry.RequestStarted;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import dev.codexclient.micrometer.internal.CodexMeters;
import dev.codexclient.protocol.TurnStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Metrics and tracing for a codex client, through Micrometer: each request the client sends and each turn becomes
 * an {@link Observation} (a span with Micrometer Tracing, a timer with a meter handler), and with a
 * {@link MeterRegistry} the client also counts tokens, approvals and the server's requests, and gauges its active
 * turns and open connections.
 *
 * <pre>{@code
 * CodexClient client = CodexClient.builder()
 *         .telemetryListener(MicrometerTelemetryListener.builder(observationRegistry).meterRegistry(meterRegistry).build())
 *         .build();
 * }</pre>
 *
 * <p>What it makes:
 * <ul>
 *   <li>observation {@value DefaultCodexRequestObservationConvention#NAME}: one per request, with the key values
 *       {@value DefaultCodexRequestObservationConvention#METHOD} and
 *       {@value DefaultCodexRequestObservationConvention#OUTCOME} (low cardinality), the request id and its attempts
 *       (high cardinality); see {@link DefaultCodexRequestObservationConvention};</li>
 *   <li>observation {@value DefaultCodexTurnObservationConvention#NAME}: one per turn (an {@code invoke_agent}
 *       operation in the OpenTelemetry GenAI conventions), with {@code gen_ai.operation.name},
 *       {@code gen_ai.provider.name}, {@code gen_ai.agent.name}, {@code error.type} and
 *       {@value DefaultCodexTurnObservationConvention#STATUS} (low cardinality), the thread (as
 *       {@code gen_ai.conversation.id}) and turn ids (high cardinality); see
 *       {@link DefaultCodexTurnObservationConvention};</li>
 *   <li>with a meter registry: the distribution summary {@value #TOKEN_USAGE} (by {@value #GEN_AI_TOKEN_TYPE}), the
 *       counters {@value #TOKENS} (by {@value #TOKEN_TYPE}) and {@value #APPROVALS} (by
 *       {@value #METHOD} and {@value #DECISION}), the timers {@value #SERVER_REQUESTS} (by {@value #METHOD} and
 *       {@value #OUTCOME}) and {@value #HANDSHAKES} (by {@value #TRANSPORT}), the gauges {@value #ACTIVE_TURNS} and
 *       {@value #OPEN_CONNECTIONS};</li>
 *   <li>given to a pool ({@code CodexPool.Builder#telemetryListener}), with a meter registry: the counter
 *       {@value #POOL_MEMBER_CHANGES} (by {@value #CHANGE}), the counter {@value #POOL_THREADS_RECREATED}, the gauges
 *       {@value #POOL_MEMBERS} and {@value #POOL_MEMBERS_EJECTED}.</li>
 * </ul>
 * Tag values are of bounded cardinality: methods and statuses of the protocol, outcomes and decisions of fixed
 * sets. Ids are high-cardinality key values of the observations only, for traces.
 *
 * <p>Observations are started and stopped as the listener receives the events, one after another on a callback
 * thread of the client, so their times lag the client by the listener's queue, which is normally empty. The timers
 * of server requests and handshakes record the durations the events carry, measured where they happened.
 *
 * <p>One listener may serve several clients; the gauges of one meter registry add up every listener's clients.
 * {@code micrometer-core} is needed only for {@link Builder#meterRegistry(MeterRegistry)}.
 */
public final class MicrometerTelemetryListener implements CodexTelemetryListener {
    /** Gauge: turns started and not yet ended. */
    public static final String ACTIVE_TURNS = "codex.client.active.turns";
    /** Gauge: connections open (handshake completed, not yet closed). */
    public static final String OPEN_CONNECTIONS = "codex.client.open.connections";
    /**
     * Distribution summary, after the OpenTelemetry GenAI conventions: the tokens of each turn, by
     * {@value #GEN_AI_TOKEN_TYPE} ({@code input}, {@code output}), with {@code gen_ai.operation.name}
     * {@code invoke_agent} and {@code gen_ai.provider.name} {@code openai}.
     */
    public static final String TOKEN_USAGE = "gen_ai.client.token.usage";
    /** Tag of {@value #TOKEN_USAGE}: {@code input} or {@code output}. */
    public static final String GEN_AI_TOKEN_TYPE = "gen_ai.token.type";
    /**
     * Counter: tokens the turns spent, by {@value #TOKEN_TYPE}, with the parts no convention names (cached input,
     * reasoning output).
     */
    public static final String TOKENS = "codex.client.tokens";
    /**
     * Tag of {@value #TOKENS}: {@code input}, {@code cached_input} (part of the input), {@code output},
     * {@code reasoning_output} (part of the output).
     */
    public static final String TOKEN_TYPE = "codex.token.type";
    /** Counter: approval requests answered with a decision, by {@value #METHOD} and {@value #DECISION}. */
    public static final String APPROVALS = "codex.client.approvals";
    /**
     * Tag of {@value #APPROVALS}: {@code accept}, {@code accept_for_session}, {@code decline}, {@code cancel},
     * {@code other}.
     */
    public static final String DECISION = "codex.decision";
    /** Timer: the server's requests to the client, from arrival to answer, by {@value #METHOD} and {@value #OUTCOME}. */
    public static final String SERVER_REQUESTS = "codex.client.server.requests";
    /** Timer: the {@code initialize} handshakes, by {@value #TRANSPORT}. */
    public static final String HANDSHAKES = "codex.client.handshakes";
    /** Tag of {@value #HANDSHAKES}: {@code stdio}, {@code websocket}, {@code unix}, {@code in-memory}, {@code custom}. */
    public static final String TRANSPORT = "codex.transport";
    /** Tag: the JSON-RPC method, e.g. {@code item/commandExecution/requestApproval}. */
    public static final String METHOD = "codex.method";
    /**
     * Tag of {@value #SERVER_REQUESTS}: {@code answered} (by the application's handler or policy),
     * {@code defaulted} (the client's default answer), {@code failed}, {@code abandoned}.
     */
    public static final String OUTCOME = "codex.outcome";

    /** Gauge: members of the pools (added and not removed), ejected ones included. */
    public static final String POOL_MEMBERS = "codex.pool.members";
    /** Gauge: members of the pools ejected for failing their health checks, not yet readmitted. */
    public static final String POOL_MEMBERS_EJECTED = "codex.pool.members.ejected";
    /** Counter: changes of the pools' members, by {@value #CHANGE}. */
    public static final String POOL_MEMBER_CHANGES = "codex.pool.member.changes";
    /** Tag of {@value #POOL_MEMBER_CHANGES}: {@code added}, {@code removed}, {@code ejected}, {@code readmitted}. */
    public static final String CHANGE = "codex.change";
    /** Counter: pooled threads without a turn started again on their member's restarted server. */
    public static final String POOL_THREADS_RECREATED = "codex.pool.threads.recreated";

    private final ObservationRegistry observations;
    /** Null without a meter registry: then micrometer-core need not be present. */
    private final CodexMeters meters;
    private final CodexRequestObservationConvention requestConvention;
    private final CodexTurnObservationConvention turnConvention;
    private final Map<RequestStarted, Observation> requests = new ConcurrentHashMap<>();
    private final Map<TurnStarted, Observation> turns = new ConcurrentHashMap<>();

    private MicrometerTelemetryListener(Builder b) {
        this.observations = b.observations;
        this.meters = b.meterRegistry == null ? null : new CodexMeters(b.meterRegistry);
        this.requestConvention = b.requestConvention;
        this.turnConvention = b.turnConvention;
    }

    /**
     * Starts configuring a listener that reports to {@code observations}.
     *
     * @param observations where the observations of requests and turns go; {@link ObservationRegistry#NOOP} for
     *                     none (meters only)
     * @return a builder
     */
    public static Builder builder(ObservationRegistry observations) {
        return new Builder(observations);
    }

    /**
     * Starts the request's observation.
     *
     * @param event the event
     */
    @Override
    public void requestStarted(RequestStarted event) {
        CodexRequestContext context = new CodexRequestContext(event);
        Observation observation = Observation.createNotStarted(requestConvention,
                DefaultCodexRequestObservationConvention.INSTANCE, () -> context, observations);
        if (observation.isNoop()) {
            return;
        }
        requests.put(event, observation.start());
    }

    /**
     * Stops the request's observation, with its outcome and error.
     *
     * @param event the event
     */
    @Override
    public void requestEnded(RequestEnded event) {
        Observation observation = requests.remove(event.started());
        if (observation == null) {
            return;
        }
        ((CodexRequestContext) observation.getContext()).ended(event);
        event.error().ifPresent(observation::error);
        observation.stop();
    }

    /**
     * Starts the turn's observation; one more active turn.
     *
     * @param event the event
     */
    @Override
    public void turnStarted(TurnStarted event) {
        if (meters != null) {
            meters.turnStarted();
        }
        CodexTurnContext context = new CodexTurnContext(event);
        Observation observation = Observation.createNotStarted(turnConvention,
                DefaultCodexTurnObservationConvention.INSTANCE, () -> context, observations);
        if (!observation.isNoop()) {
            turns.put(event, observation.start());
        }
    }

    /**
     * Stops the turn's observation with its status, and an error when it failed; counts its tokens.
     *
     * @param event the event
     */
    @Override
    public void turnEnded(TurnEnded event) {
        if (meters != null) {
            meters.turnEnded(event);
        }
        Observation observation = turns.remove(event.started());
        if (observation == null) {
            return;
        }
        ((CodexTurnContext) observation.getContext()).ended(event);
        if (!TurnStatus.COMPLETED.equals(event.status())) {
            event.error().ifPresent(observation::error);
        }
        observation.stop();
    }

    /**
     * Times the server's request and counts an approval's decision.
     *
     * @param event the event
     */
    @Override
    public void serverRequestHandled(ServerRequestHandled event) {
        if (meters != null) {
            meters.serverRequestHandled(event);
        }
    }

    /**
     * One more open connection; times the handshake.
     *
     * @param event the event
     */
    @Override
    public void connectionOpened(ConnectionOpened event) {
        if (meters != null) {
            meters.connectionOpened(event);
        }
    }

    /**
     * One fewer open connection.
     *
     * @param event the event
     */
    @Override
    public void connectionClosed(ConnectionClosed event) {
        if (meters != null) {
            meters.connectionClosed(event);
        }
    }

    /**
     * One more member, counted as {@code added}.
     *
     * @param event the event
     */
    @Override
    public void poolMemberAdded(PoolMemberAdded event) {
        if (meters != null) {
            meters.poolMemberAdded(event);
        }
    }

    /**
     * One fewer member (it drains), counted as {@code removed}.
     *
     * @param event the event
     */
    @Override
    public void poolMemberRemoved(PoolMemberRemoved event) {
        if (meters != null) {
            meters.poolMemberRemoved(event);
        }
    }

    /**
     * One more ejected member, counted as {@code ejected}.
     *
     * @param event the event
     */
    @Override
    public void poolMemberEjected(PoolMemberEjected event) {
        if (meters != null) {
            meters.poolMemberEjected(event);
        }
    }

    /**
     * One fewer ejected member, counted as {@code readmitted}.
     *
     * @param event the event
     */
    @Override
    public void poolMemberReadmitted(PoolMemberReadmitted event) {
        if (meters != null) {
            meters.poolMemberReadmitted(event);
        }
    }

    /**
     * Counts a re-created thread.
     *
     * @param event the event
     */
    @Override
    public void pooledThreadRecreated(PooledThreadRecreated event) {
        if (meters != null) {
            meters.pooledThreadRecreated(event);
        }
    }

    /** Configures a {@link MicrometerTelemetryListener}. */
    public static final class Builder {
        private final ObservationRegistry observations;
        private MeterRegistry meterRegistry;
        private CodexRequestObservationConvention requestConvention;
        private CodexTurnObservationConvention turnConvention;

        private Builder(ObservationRegistry observations) {
            this.observations = Objects.requireNonNull(observations, "observations");
        }

        /**
         * Where the counters, gauges and server-request timers go (none by default: observations only). Timers of
         * requests and turns come from the observation registry's meter handler, if it has one.
         *
         * @param registry the meter registry
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Names request observations and their key values in place of
         * {@link DefaultCodexRequestObservationConvention} (a global convention on the registry still wins).
         *
         * @param convention the convention
         * @return this builder
         */
        public Builder requestConvention(CodexRequestObservationConvention convention) {
            this.requestConvention = Objects.requireNonNull(convention, "convention");
            return this;
        }

        /**
         * Names turn observations and their key values in place of {@link DefaultCodexTurnObservationConvention}
         * (a global convention on the registry still wins).
         *
         * @param convention the convention
         * @return this builder
         */
        public Builder turnConvention(CodexTurnObservationConvention convention) {
            this.turnConvention = Objects.requireNonNull(convention, "convention");
            return this;
        }

        /**
         * The listener; give it to {@code CodexClientBuilder#telemetryListener}. With a meter registry, registers the
         * gauges on it.
         *
         * @return the listener
         */
        public MicrometerTelemetryListener build() {
            return new MicrometerTelemetryListener(this);
        }
    }
}
