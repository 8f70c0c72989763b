package dev.codexclient.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.DefaultCacheProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The Jackson configuration for protocol JSON. Every module reads and writes protocol messages through
 * {@link #mapper()} (or a {@link #newMapper()} it may customise further), so that all of them agree on the
 * details below.
 *
 * <ul>
 *   <li>Every protocol type reads and writes through its generated binder (named by the type's
 *       {@code @JsonDeserialize}/{@code @JsonSerialize}), so any {@code ObjectMapper} gives the same JSON; this one
 *       adds the settings below.</li>
 *   <li>Members a newer codex adds are kept ({@link UnknownMembers}), unknown enum values keep their string, unknown
 *       union variants their JSON: what is read is written back unchanged.</li>
 *   <li>Empty records (many params and responses are {@code {}}) serialize as {@code {}}.</li>
 *   <li>Serializer and deserializer caches are sized for the whole protocol model.</li>
 *   <li>No limit on string length below what codex sends (tool outputs and diffs can be large); the
 *       line-length cap of the transport is the guard.</li>
 * </ul>
 *
 * <p>The protocol needs Jackson 2.17 or newer; the first use of this class fails with an
 * {@link IllegalStateException} naming the version found when the class path has an older one.
 */
public final class ProtocolJson {
    private ProtocolJson() {
    }

    /**
     * The shared, fully configured mapper. It is thread-safe; do not reconfigure it.
     *
     * @return the mapper
     * @throws IllegalStateException when the Jackson on the class path is older than the protocol needs
     */
    public static ObjectMapper mapper() {
        return Shared.MAPPER;
    }

    /**
     * A new mapper with the protocol configuration, for callers that need their own settings on top.
     *
     * @return a new mapper
     * @throws IllegalStateException when the Jackson on the class path is older than the protocol needs
     */
    public static ObjectMapper newMapper() {
        JacksonVersion.check();
        return Factory.build();
    }

    /**
     * {@code config} with a cache of the values a stream repeats, for the thread that calls this method: a read
     * through the returned config on that thread returns the string read just before for a message's method, a
     * union's tag or the id of a thread, turn or item (the {@code Long} for an optional timestamp) when its characters
     * (its value) are the same, instead of a new copy. For a reader thread that decodes a stream, which names the same
     * thread, turn and item in message after message; the values are equal either way, only their identity differs.
     * The cache keeps one value of each kind and is the calling thread's alone: reads through the returned config on
     * any other thread take the plain path, as through {@code config}.
     *
     * @param config the configuration to extend, such as {@code mapper.getDeserializationConfig()}
     * @return a new configuration: {@code config} with the calling thread's cache (its attributes unchanged)
     */
    public static DeserializationConfig reusingRepeatedValues(DeserializationConfig config) {
        return config.with(new RepeatedValues(config.getAttributes(), Thread.currentThread()));
    }

    /** Built on first use, after the version check: an old Jackson lacks classes the configuration names. */
    private static final class Shared {
        static final ObjectMapper MAPPER = newMapper();
    }

    /** Kept apart from the version check so that an old Jackson fails the check, not the loading of this code. */
    private static final class Factory {
        static ObjectMapper build() {
            JsonFactory factory = JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxStringLength(Integer.MAX_VALUE)
                            .maxNestingDepth(2_000)
                            .build())
                    .build();
            return JsonMapper.builder(factory)
                    // The protocol has about 2,000 classes: Jackson's default serializer cache (4,000 entries, generic
                    // types included) would keep evicting and rebuilding its lookup map.
                    // The type cache must be sized too: the builder's default for it is 0, which turns every type
                    // lookup during (de)serialization into a miss that rebuilds the JavaType (a 7x slower decode).
                    .cacheProvider(DefaultCacheProvider.builder()
                            .maxDeserializerCacheSize(20_000)
                            .maxSerializerCacheSize(20_000)
                            .maxTypeFactoryCacheSize(20_000)
                            .build())
                    .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                    .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                    .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                    .build();
        }
    }
}
