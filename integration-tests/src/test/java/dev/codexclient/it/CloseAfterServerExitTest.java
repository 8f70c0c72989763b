package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** close() after the server ended on its own still stops the client's threads. */
@Timeout(20)
class CloseAfterServerExitTest {

    @Test
    void closeAfterTheServerExitedStopsTheCallbackThreads() throws Exception {
        Set<String> before = ClientTestSupport.codexThreads();
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            CodexClient client = CodexClient.builder().transport(fake.connectInMemory()).build();
            client.startThread();   // puts the callback pool to work
            fake.apply(Fault.exit(137));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!client.isClosed() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(client.isClosed()).isTrue();
            client.close();
        }
        RealCodexKillTest.assertNoLeaks(before);
    }
}
