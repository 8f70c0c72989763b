package dev.codexclient.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import java.io.IOException;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * A protocol member where "absent", "{@code null}" and "a value" mean three different things, for example
 * {@code ThreadMetadataGitInfoUpdateParams.sha}: omit it to keep the stored commit, send {@code null} to clear it,
 * send a string to replace it.
 *
 * <p>In generated records a {@code Tristate} component is written only when it is not {@link #absent()}; a Java
 * {@code null} in its place is treated as absent.
 * <pre>{@code
 * ThreadMetadataGitInfoUpdateParams.builder().sha(Tristate.ofNull()).build();   // {"sha":null}
 * }</pre>
 *
 * @param <T> the value type
 */
@JsonSerialize(using = Tristate.Ser.class)
@JsonDeserialize(using = Tristate.Deser.class)
public final class Tristate<T> {
    private static final Tristate<?> ABSENT = new Tristate<>(State.ABSENT, null);
    private static final Tristate<?> NULL = new Tristate<>(State.NULL, null);

    private enum State { ABSENT, NULL, VALUE }

    private final State state;
    private final T value;

    private Tristate(State state, T value) {
        this.state = state;
        this.value = value;
    }

    /**
     * {@return the absent member: it is not sent}
     *
     * @param <T> the value type
     */
    @SuppressWarnings("unchecked")
    public static <T> Tristate<T> absent() {
        return (Tristate<T>) ABSENT;
    }

    /**
     * {@return the member sent as {@code null}}
     *
     * @param <T> the value type
     */
    @SuppressWarnings("unchecked")
    public static <T> Tristate<T> ofNull() {
        return (Tristate<T>) NULL;
    }

    /**
     * {@return the member sent with {@code value}}
     *
     * @param <T>   the value type
     * @param value the value; must not be null (use {@link #ofNull()})
     * @throws NullPointerException when {@code value} is null
     */
    public static <T> Tristate<T> of(T value) {
        return new Tristate<>(State.VALUE, Objects.requireNonNull(value, "value (use Tristate.ofNull())"));
    }

    /** {@return whether the member is absent: it is not sent} */
    public boolean isAbsent() {
        return state == State.ABSENT;
    }

    /** {@return whether the member is sent as {@code null}} */
    public boolean isNull() {
        return state == State.NULL;
    }

    /** {@return whether a value (not null) is present} */
    public boolean isPresent() {
        return state == State.VALUE;
    }

    /**
     * {@return the value}
     *
     * @throws NoSuchElementException when absent or null
     */
    public T get() {
        if (state != State.VALUE) {
            throw new NoSuchElementException("Tristate is " + state.name().toLowerCase());
        }
        return value;
    }

    /** {@return the value if present; empty when absent or null} */
    public Optional<T> toOptional() {
        return Optional.ofNullable(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tristate<?> t && t.state == state && Objects.equals(t.value, value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(state, value);
    }

    @Override
    public String toString() {
        return switch (state) {
            case ABSENT -> "Tristate.absent";
            case NULL -> "Tristate.null";
            case VALUE -> "Tristate[" + value + "]";
        };
    }

    /** Writes {@code null} or the value; {@link #isEmpty} makes {@code NON_EMPTY} drop absent members. */
    static final class Ser extends JsonSerializer<Tristate<?>> {
        @Override
        public void serialize(Tristate<?> v, JsonGenerator g, SerializerProvider p) throws IOException {
            if (v.state == State.VALUE) {
                p.defaultSerializeValue(v.value, g);
            } else {
                g.writeNull();
            }
        }

        @Override
        public boolean isEmpty(SerializerProvider provider, Tristate<?> value) {
            return value == null || value.isAbsent();
        }
    }

    /** Contextual so that the value type comes from the declared {@code Tristate<T>}. */
    static final class Deser extends JsonDeserializer<Tristate<?>> implements ContextualDeserializer {
        private final JavaType valueType;
        private final JsonDeserializer<Object> valueDeser;

        Deser() {
            this(null, null);
        }

        private Deser(JavaType valueType, JsonDeserializer<Object> valueDeser) {
            this.valueType = valueType;
            this.valueDeser = valueDeser;
        }

        @Override
        public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property)
                throws JsonMappingException {
            JavaType type = property != null ? property.getType() : ctxt.getContextualType();
            JavaType content = type == null ? null : type.containedType(0);
            if (content == null) {
                content = ctxt.getTypeFactory().constructType(Object.class);
            }
            return new Deser(content, ctxt.findContextualValueDeserializer(content, property));
        }

        @Override
        public Tristate<?> deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (valueDeser == null) {
                return Tristate.of(ctxt.readValue(p, Object.class));
            }
            Object v = valueDeser.deserialize(p, ctxt);
            return v == null ? Tristate.ofNull() : Tristate.of(v);
        }

        @Override
        public Tristate<?> getNullValue(DeserializationContext ctxt) {
            return Tristate.ofNull();
        }

        @Override
        public Object getAbsentValue(DeserializationContext ctxt) {
            return Tristate.absent();
        }
    }
}
