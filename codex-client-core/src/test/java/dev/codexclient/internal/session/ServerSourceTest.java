package dev.codexclient.internal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.transport.InMemoryTransport;
import dev.codexclient.transport.Transport;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ServerSourceTest {

    @Test
    void oneTransportCannotServeARestartPolicy() {
        ServerSource source = new ServerSource(UnaryOperator.identity());
        source.transport(InMemoryTransport.pair().client());
        assertThatCode(() -> source.check(false)).doesNotThrowAnyException();
        assertThatThrownBy(() -> source.check(true)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transportFactory(...) instead");

        source.transportFactory(() -> InMemoryTransport.pair().client());
        assertThatCode(() -> source.check(true)).doesNotThrowAnyException();
    }

    @Test
    void spawnSettingsBesideATransportOfTheUsersAreRefusedByName() {
        ServerSource source = new ServerSource(UnaryOperator.identity());
        source.stdio("codexHome(...)", b -> b.codexHome(Path.of("/tmp/home")));
        source.stdio("environment(...)", b -> b.environment("A", "1"));
        assertThatCode(() -> source.check(false)).doesNotThrowAnyException();
        source.transportFactory(() -> InMemoryTransport.pair().client());
        assertThatThrownBy(() -> source.check(false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("codexHome(...), environment(...)");
    }

    @Test
    void theProgramIsNamedOnce() {
        ServerSource source = new ServerSource(UnaryOperator.identity());
        source.stdio("codexBinary(...)", b -> b.executable(Path.of("/usr/bin/codex")));
        source.stdio("command(...)", b -> b.executable("codex").args(List.of("app-server")));
        assertThatThrownBy(() -> source.check(false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("codexBinary(...) and command(...)");
    }

    @Test
    void eachConnectionGetsTheFactorysNextTransport() {
        ServerSource source = new ServerSource(UnaryOperator.identity());
        source.transportFactory(() -> InMemoryTransport.pair().client());
        Transport first = source.transports().get();
        Transport second = source.transports().get();
        assertThat(first).isNotSameAs(second);
    }
}
