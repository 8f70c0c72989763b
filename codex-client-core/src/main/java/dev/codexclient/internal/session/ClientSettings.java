package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.PublisherOverflow;
import dev.codexclient.RestartPolicy;
import dev.codexclient.RetryPolicy;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.requests.RequestHandlers;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.LoginAccountParams;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Everything a client was built with, fixed at {@code build()}: the value the runtime reads its settings from.
 * Absent optional settings are {@link Optional#empty()}.
 *
 * @param transports          makes the transport of each connection (the first, and each replacement)
 * @param restartPolicy       how a lost connection is replaced; empty for never
 * @param closeTimeout        the bound of the server's end on close; empty for the transport's own
 * @param introduction        how the client introduces itself in the handshake
 * @param requestTimeout      the default time a request waits for its response
 * @param initializeTimeout   the time the handshake may take
 * @param interruptGrace      how long an interrupted turn may take to settle
 * @param turnWatchdog        the idle time of every turn's watchdog; empty for none
 * @param retryPolicy         how overloaded requests are retried
 * @param userMapper          the mapper of the user's types; empty for a lenient default
 * @param replayLimit         the most events a turn keeps for late listeners
 * @param replayBytes         the most bytes a turn keeps for late listeners
 * @param publisherBufferSize the most events a publisher's subscriber may let wait
 * @param publisherOverflow   what a publisher does when its subscriber lets more wait
 * @param publisherDeltaInterval the shortest time between two text deltas a subscription hands over; zero for none
 * @param redactor            this client's secrets
 * @param scheduler           the clock and timer; empty for the system's
 * @param telemetryListener       the telemetry listener
 * @param listeners           notification listeners registered before the handshake
 * @param handlers            the handlers of server requests
 */
public record ClientSettings(Supplier<? extends Transport> transports, Optional<RestartPolicy> restartPolicy,
                             Optional<Duration> closeTimeout, Introduction introduction, Duration requestTimeout,
                             Duration initializeTimeout, Duration interruptGrace, Optional<Duration> turnWatchdog,
                             RetryPolicy retryPolicy, Optional<ObjectMapper> userMapper, int replayLimit, long replayBytes,
                             int publisherBufferSize, PublisherOverflow publisherOverflow, Duration publisherDeltaInterval,
                             Redactor redactor, Optional<Scheduler> scheduler,
                             CodexTelemetryListener telemetryListener, List<Consumer<ServerNotification>> listeners,
                             RequestHandlers handlers) {

    /** Copies the listeners, so the value does not change with the builder. */
    public ClientSettings {
        listeners = List.copyOf(listeners);
    }

    /**
     * What the client sends in {@code initialize} and right after it.
     *
     * @param clientName      the client's machine name
     * @param clientTitle     the client's name for people
     * @param clientVersion   the client's version
     * @param experimentalApi whether to declare the {@code experimentalApi} capability
     * @param optOut          notification methods the server should never send
     * @param login           the login right after the handshake; empty for none
     */
    public record Introduction(String clientName, String clientTitle, String clientVersion, boolean experimentalApi,
                            Set<String> optOut, Optional<LoginAccountParams> login, String experimentalApiSetting) {

        /** Copies the opt-outs, so the value does not change with the builder. */
        public Introduction {
            optOut = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(optOut));
        }
    }
}
