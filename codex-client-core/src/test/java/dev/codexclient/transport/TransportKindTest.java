package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TransportKindTest {

    @Test
    void theShippedTransportsAreTheirConstants() {
        assertThat(TransportKind.of(StdioTransport.builder().executable("codex").args("app-server").build()))
                .isEqualTo(TransportKind.STDIO);
        assertThat(TransportKind.of(InMemoryTransport.pair().client())).isEqualTo(TransportKind.IN_MEMORY);
    }

    @Test
    void aCustomTransportIsAKindOfItsOwnOrCustom() {
        assertThat(TransportKind.of(new Named("  QUIC "))).isEqualTo(new TransportKind("quic"));
        assertThat(TransportKind.of(new Named("quic")).toString()).isEqualTo("quic");
        assertThat(TransportKind.of(new Named(null))).isEqualTo(TransportKind.CUSTOM);
        assertThat(TransportKind.of(new Named(" "))).isEqualTo(TransportKind.CUSTOM);
        assertThatThrownBy(() -> new TransportKind("")).isInstanceOf(IllegalArgumentException.class);
    }

    private record Named(String kind) implements Transport {
        @Override
        public void start(MessageSink sink) {
        }

        @Override
        public void send(byte[] message) {
        }

        @Override
        public void close() {
        }

        @Override
        public String describe() {
            return "named";
        }
    }
}
