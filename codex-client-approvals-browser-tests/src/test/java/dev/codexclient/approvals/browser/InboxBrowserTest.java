package dev.codexclient.approvals.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.boot.InboxTestApplication;
import dev.codexclient.approvals.boot.Instances;
import dev.codexclient.approvals.boot.Services;
import dev.codexclient.approvals.testing.Entries;
import dev.codexclient.approvals.testing.RealCodex;
import dev.codexclient.approvals.testing.TestPostgres;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The inbox's page in headless Chromium, the service in front of the real codex and a real PostgreSQL: the page
 * shows codex's request as it comes, a click on Approve runs the command and the turn completes, Decline declines;
 * two people on two instances decide the same entry and the one who came second is shown who decided; a command
 * with {@code <script>} and {@code <img onerror>} in it is shown as that text and runs no script; a lost entry
 * shows its thread. Each scenario leaves screenshots in {@code target/screenshots/}.
 */
@Tag("real-codex")
@Tag("browser")
class InboxBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final RealCodex codex = new RealCodex();
    private final List<AutoCloseable> open = new ArrayList<>();
    private String url;
    private ConfigurableApplicationContext service;
    private int port;

    @BeforeEach
    void service() {
        url = TestPostgres.shared().url(TestPostgres.shared().newDatabaseName());
        service = Services.withRealCodex(codex, "--spring.datasource.url=" + url,
                "--codex.approvals.inbox.instance-id=a");
        port = Services.port(service);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        service.close();
        codex.close();
    }

    private <T extends AutoCloseable> T opened(T resource) {
        open.add(resource);
        return resource;
    }

    private CodexTurn askToRun(String command) {
        codex.model.when(r -> r.lastUserText().equals("run " + command),
                ModelStep.exec(command), ModelStep.reply("Done."));
        CodexThread thread = service.getBean(CodexClient.class).startThread(codex.threadParams());
        return thread.startTurn("run " + command);
    }

    private InboxEntry pendingEntry() throws Exception {
        try (Entries entries = new Entries(service.getBean(ApprovalInbox.class))) {
            return entries.await(e -> e.state() == EntryState.PENDING, WAIT);
        }
    }

    @Test
    void approveOnThePageRunsTheCommandAndTheTurnCompletes_declineDeclines() throws Exception {
        Browser alice = opened(new Browser("alice", port)).signIn("alice");
        CodexTurn turn = askToRun("printf approved | tee approved.txt");
        String id = alice.firstPendingId();
        // codex runs it through a login shell, and says so: the command as shown is bash -lc '...'.
        assertThat(alice.awaitText(id, ".command", "printf approved | tee approved.txt")).startsWith("/bin/bash");
        alice.screenshot("1-pending");

        alice.click(id, "accept");

        assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        assertThat(Files.readString(codex.workspace.resolve("approved.txt"))).isEqualTo("approved");
        assertThat(alice.awaitEnded(id, "sent to codex").getText()).contains("by alice");
        alice.screenshot("2-approved");

        CodexTurn declined = askToRun("printf declined | tee declined.txt");
        String second = alice.firstPendingId();
        alice.click(second, "decline");
        assertThat(declined.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        assertThat(codex.workspace.resolve("declined.txt")).doesNotExist();
        assertThat(alice.awaitEnded(second, "sent to codex").getText()).contains("Decline").contains("by alice");
        alice.screenshot("3-declined");
    }

    @Test
    void twoPeopleOnTwoInstancesDecideTheSameEntryOneWinsTheOtherIsShownWhoDecided() throws Exception {
        // Instance B hears of no change but through its own page's requests (no NOTIFY, no poll within the test),
        // so that its page is still showing the entry as pending when bob clicks: the refusal is B's to show.
        Instances.Instance b = opened(Instances.start("b", "spring.datasource.url=" + url, "codex.enabled=false",
                "codex.approvals.inbox.instance-id=b", "codex.approvals.inbox.notifications=false",
                "codex.approvals.inbox.poll-interval=1h"));
        Browser alice = opened(new Browser("alice", port)).signIn("alice");
        CodexTurn turn = askToRun("printf both | tee both.txt");
        String id = alice.firstPendingId();
        Browser bob = opened(new Browser("bob", b.port())).signIn("bob");
        bob.awaitText(id, ".command", "printf both | tee both.txt");
        alice.screenshot("4-alice-on-a");
        bob.screenshot("5-bob-on-b");

        alice.click(id, "accept");
        alice.awaitEnded(id, "by alice");
        bob.click(id, "decline");

        assertThat(bob.awaitMessage(id, "by alice")).contains("Already decided").contains("not recorded");
        assertThat(bob.awaitEnded(id, "by alice").getText()).contains("Approve");
        bob.screenshot("6-bob-refused");
        assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        assertThat(codex.workspace.resolve("both.txt")).exists();
        InboxEntry entry = service.getBean(ApprovalInbox.class).entry(id).orElseThrow();
        assertThat(entry.decidedBy()).contains("alice");
        assertThat(entry.history()).anySatisfy(h -> {
            assertThat(h.what()).isEqualTo("refused");
            assertThat(h.by()).contains("bob");
        });
    }

    @Test
    void aCommandWithMarkupIsShownAsTextAndRunsNoScript_aLostEntryShowsItsThread() throws Exception {
        String command = "printf '<script>window.xss=1</script><img src=x onerror=window.xss=2>' | tee xss.txt";
        Browser alice = opened(new Browser("alice", port)).signIn("alice");
        CodexTurn turn = askToRun(command);
        String id = alice.firstPendingId();

        assertThat(alice.awaitText(id, ".command", command)).contains(command);
        assertThat(alice.all("article.entry img")).isEmpty();
        assertThat(alice.all("article.entry script")).isEmpty();
        assertThat(alice.script("return typeof window.xss")).isEqualTo("undefined");
        alice.card(id).findElement(By.cssSelector("details.full summary")).click();
        assertThat(alice.awaitText(id, "details.full pre.json", "<script>window.xss=1</script>")).contains("<img");
        assertThat(alice.script("return typeof window.xss")).isEqualTo("undefined");
        alice.screenshot("7-markup-as-text");

        service.getBean(CodexClient.class).serverProcessTree().forEach(ProcessHandle::destroyForcibly);

        WebElement lost = alice.awaitEnded(id, "Lost");
        assertThat(lost.getText()).contains("Resume thread " + turn.threadId());
        alice.screenshot("8-lost");
    }
}
