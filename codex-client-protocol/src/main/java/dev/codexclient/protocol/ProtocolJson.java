package dev.codexclient.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.DefaultCacheProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;

/**
 * The Jackson configuration for protocol JSON. Every module reads and writes protocol messages through
 * {@link #mapper()} (or a {@link #newMapper()} it may customise further), so that all of them agree on the
 * details below.
 *
 * <ul>
 *   <li>Unknown members are ignored: a newer codex may add fields at any time.</li>
 *   <li>Empty records (many params and responses are {@code {}}) serialize as {@code {}}.</li>
 *   <li>Serializer and deserializer caches are sized for the whole protocol model.</li>
 *   <li>No limit on string length below what codex sends (tool outputs and diffs can be large); the
 *       line-length cap of the transport is the guard.</li>
 *   <li>The generated records that use nothing but named properties bind member by member into their
 *       constructor, which is cheaper than Jackson's general creator path and gives the same values.</li>
 * </ul>
 */
public final class ProtocolJson {
    private static final ObjectMapper SHARED = newMapper();

    private ProtocolJson() {
    }

    /** The shared, fully configured mapper. It is thread-safe; do not reconfigure it. */
    public static ObjectMapper mapper() {
        return SHARED;
    }

    /** A new mapper with the protocol configuration, for callers that need their own settings on top. */
    public static ObjectMapper newMapper() {
        return newMapper(true);
    }

    /** {@code plainRecords}: whether plain records bind through {@link RecordDeserializer} (tests compare both). */
    static ObjectMapper newMapper(boolean plainRecords) {
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
                .addModules(plainRecords ? List.of(RecordDeserializer.module()) : List.of())
                .build();
    }
}
