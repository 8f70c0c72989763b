package dev.codexclient.agent.model;

import dev.codexclient.protocol.Personality;
import dev.codexclient.protocol.ReasoningSummary;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which model a run uses and how: the model, reasoning effort, reasoning summary and personality. What is not set
 * is left to codex's own configuration.
 *
 * <p>Settings can also be given by name ({@link Builder#option(String, String)}, e.g. from a configuration file);
 * sampling knobs other model APIs have ({@code temperature}, {@code top_p}, {@code seed}, {@code stop},
 * {@code presence_penalty}, {@code frequency_penalty}, {@code max_tokens}) are not supported by the codex
 * app-server and are rejected by {@link Builder#build()}, as is any name it does not know.
 */
@SuppressWarnings("deprecation") // Personality: codex marks it deprecated, yet still takes it
public final class ModelConfig {
    /** Sampling knobs of other model APIs that codex does not take. */
    private static final Set<String> UNSUPPORTED = Set.of("temperature", "top_p", "seed", "stop",
            "presence_penalty", "frequency_penalty", "max_tokens", "max_output_tokens", "logit_bias", "n");

    /** Reasoning effort, as codex names it on {@code turn/start}. */
    public enum Effort {
        /** No reasoning. */
        NONE,
        /** Minimal reasoning. */
        MINIMAL,
        /** Low. */
        LOW,
        /** Medium. */
        MEDIUM,
        /** High. */
        HIGH,
        /** Extra high. */
        XHIGH;

        /** {@return the effort as codex names it on {@code turn/start} ({@code effort}), e.g. {@code "xhigh"}} */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final String model;
    private final Effort effort;
    private final ReasoningSummary summary;
    private final Personality personality;

    private ModelConfig(Builder b) {
        this.model = b.model;
        this.effort = b.effort;
        this.summary = b.summary;
        this.personality = b.personality;
    }

    /**
     * A configuration that leaves everything to codex's own.
     *
     * @return the configuration
     */
    public static ModelConfig defaults() {
        return builder().build();
    }

    /**
     * A builder.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The model.
     *
     * @return its id, when set
     */
    public Optional<String> model() {
        return Optional.ofNullable(model);
    }

    /**
     * The reasoning effort.
     *
     * @return the effort, when set
     */
    public Optional<Effort> effort() {
        return Optional.ofNullable(effort);
    }

    /**
     * The reasoning summary.
     *
     * @return the summary preference, when set
     */
    public Optional<ReasoningSummary> summary() {
        return Optional.ofNullable(summary);
    }

    /**
     * The personality.
     *
     * @return the personality, when set
     */
    public Optional<Personality> personality() {
        return Optional.ofNullable(personality);
    }

    @Override
    public String toString() {
        return "ModelConfig[model=" + model + ", effort=" + effort + ", summary=" + summary + ", personality="
                + personality + "]";
    }

    /** Builds a {@link ModelConfig}. */
    public static final class Builder {
        private String model;
        private Effort effort;
        private ReasoningSummary summary;
        private Personality personality;
        private final Map<String, String> options = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * The model, e.g. {@code gpt-5.1-codex}.
         *
         * @param model the model's id
         * @return this builder
         */
        public Builder model(String model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * The reasoning effort.
         *
         * @param effort the effort
         * @return this builder
         */
        public Builder effort(Effort effort) {
            this.effort = Objects.requireNonNull(effort, "effort");
            return this;
        }

        /**
         * The reasoning summary preference.
         *
         * @param summary the preference
         * @return this builder
         */
        public Builder summary(ReasoningSummary summary) {
            this.summary = Objects.requireNonNull(summary, "summary");
            return this;
        }

        /**
         * The personality.
         *
         * @param personality the personality
         * @return this builder
         */
        public Builder personality(Personality personality) {
            this.personality = Objects.requireNonNull(personality, "personality");
            return this;
        }

        /**
         * A setting by name: {@code model}, {@code effort}, {@code summary} or {@code personality}, with its wire
         * value ({@code effort=medium}). Checked by {@link #build()}.
         *
         * @param name  the setting's name
         * @param value its value
         * @return this builder
         */
        public Builder option(String name, String value) {
            options.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException when an option is not supported by the codex app-server, unknown, or
         *                                  has a value codex does not know
         */
        public ModelConfig build() {
            for (Map.Entry<String, String> o : options.entrySet()) {
                String name = o.getKey();
                String value = o.getValue();
                if (UNSUPPORTED.contains(name.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("the model setting '" + name
                            + "' is not supported by the codex app-server");
                }
                switch (name) {
                    case "model" -> model = value;
                    case "effort" -> effort = parseEffort(value);
                    case "summary" -> summary = known(ReasoningSummary.of(value), name, value);
                    case "personality" -> personality = known(Personality.of(value), name, value);
                    default -> throw new IllegalArgumentException("unknown model setting '" + name
                            + "': use model, effort, summary or personality");
                }
            }
            return new ModelConfig(this);
        }

        private static Effort parseEffort(String value) {
            try {
                return Effort.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown reasoning effort '" + value
                        + "': use none, minimal, low, medium, high or xhigh", e);
            }
        }

        private static <T> T known(T parsed, String name, String value) {
            boolean isKnown = parsed instanceof ReasoningSummary s ? s.isKnown() : ((Personality) parsed).isKnown();
            if (!isKnown) {
                throw new IllegalArgumentException("unknown " + name + " '" + value + "'");
            }
            return parsed;
        }
    }
}
