/**
 * Test support for codex integrations: {@link dev.codexclient.testkit.FakeCodexAppServer} (a scriptable fake
 * {@code codex app-server} reached in memory or through a real child process), {@link dev.codexclient.testkit.TurnScript}
 * (canned turns), {@link dev.codexclient.testkit.Fault} (misbehaviour as values), {@link dev.codexclient.testkit.WireRecorder}
 * with {@link dev.codexclient.testkit.FakeCodexAppServer#replay(java.nio.file.Path)} (turn a recorded session into a
 * regression test) and {@link dev.codexclient.testkit.CodexTestExtension} (JUnit 5: a fake per test, leak checks).
 *
 * <pre>{@code
 * @ExtendWith(CodexTestExtension.class)
 * class DeclinesDangerousCommandsTest {
 *     @Test void declines(FakeCodexAppServer fake) {
 *         fake.onTurnStart(turn -> turn
 *                 .agentMessage("Deleting…")
 *                 .commandApproval("rm -rf /", reply -> assertThat(reply.decision()).contains("decline"))
 *                 .completed());
 *         Transport transport = fake.connectInMemory();   // hand it to the client under test
 *         ...
 *         assertThat(fake.takeRequest("turn/start", Duration.ofSeconds(5)).params().path("threadId").asText())
 *                 .isNotEmpty();
 *     }
 * }
 * }</pre>
 */
package dev.codexclient.testkit;
