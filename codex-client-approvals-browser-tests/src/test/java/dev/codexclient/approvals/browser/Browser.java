package dev.codexclient.approvals.browser;

import dev.codexclient.approvals.boot.InboxTestApplication;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One person's headless Chromium on the inbox's page: Debian's {@code chromium} driven through Debian's
 * {@code chromedriver} (named, so that Selenium looks for no driver of its own), with an empty profile and a home
 * under {@code target/}, and the switches that keep it off the network this machine does not have.
 */
final class Browser implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(60);

    private final ChromeDriver driver;
    private final String base;

    Browser(String name, int port) {
        Path dir = Path.of("target", "chromium", name + "-" + System.nanoTime()).toAbsolutePath();
        try {
            Files.createDirectories(dir.resolve("home"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String chromium = System.getProperty("chromium.binary", "/usr/bin/chromium");
        String chromedriver = System.getProperty("chromedriver.binary", "/usr/bin/chromedriver");
        if (!new File(chromium).canExecute() || !new File(chromedriver).canExecute()) {
            throw new IllegalStateException("the browser tests need " + chromium + " and " + chromedriver
                    + " (Debian: apt-get install chromium chromium-driver)");
        }
        ChromeOptions options = new ChromeOptions().setBinary(chromium).addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--user-data-dir=" + dir.resolve("profile"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(chromedriver)).usingAnyFreePort()
                .withEnvironment(Map.of("HOME", dir.resolve("home").toString()))
                .withLogFile(dir.resolve("chromedriver.log").toFile()).build();
        this.driver = new ChromeDriver(service, options);
        this.base = "http://127.0.0.1:" + port + "/codex/approvals";
    }

    /** Signs in on the page's form and waits for the page to be live (its event stream open). */
    Browser signIn(String user) {
        driver.get(base + "/");
        await(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        driver.findElement(By.id("username")).sendKeys(user);
        driver.findElement(By.id("password")).sendKeys(InboxTestApplication.PASSWORD);
        driver.findElement(By.id("sign-in")).click();
        await(ExpectedConditions.textToBe(By.id("live"), "live"));
        return this;
    }

    WebElement card(String entryId) {
        return await(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("article.entry[data-id='" + entryId + "']")));
    }

    /** The first pending entry's card, once the page shows one. */
    WebElement firstPending() {
        return await(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#pending article.entry")));
    }

    /**
     * Waits until the part {@code css} of the entry's card shows {@code text} and returns all it shows. Read afresh
     * each time: a change of the entry redraws its card.
     */
    String awaitText(String entryId, String css, String text) {
        By selector = By.cssSelector("article.entry[data-id='" + entryId + "'] " + css);
        await(ExpectedConditions.textToBePresentInElementLocated(selector, text));
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElement(selector).getText());
    }

    /** The id of the first pending entry the page shows. */
    String firstPendingId() {
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElement(By.cssSelector("#pending article.entry")).getAttribute("data-id"));
    }

    void click(String entryId, String decision) {
        new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> {
                    d.findElement(By.cssSelector("article.entry[data-id='" + entryId + "'] button.decide[data-decision='"
                            + decision + "']")).click();
                    return true;
                });
    }

    /** Waits until the card of the entry is in the ended list with {@code text} in its outcome. */
    WebElement awaitEnded(String entryId, String text) {
        By selector = By.cssSelector("#ended article.entry[data-id='" + entryId + "'] .outcome");
        await(ExpectedConditions.textToBePresentInElementLocated(selector, text));
        return driver.findElement(selector);
    }

    /** Waits until the card's message says {@code text}. */
    String awaitMessage(String entryId, String text) {
        By selector = By.cssSelector("article.entry[data-id='" + entryId + "'] .message");
        await(ExpectedConditions.textToBePresentInElementLocated(selector, text));
        return driver.findElement(selector).getText();
    }

    ChromeDriver driver() {
        return driver;
    }

    Object script(String js) {
        return ((JavascriptExecutor) driver).executeScript(js);
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    void reload() {
        driver.navigate().refresh();
        await(ExpectedConditions.textToBe(By.id("live"), "live"));
    }

    /** Saves what the browser shows as {@code target/screenshots/NAME.png}, a build artifact. */
    Path screenshot(String name) {
        try {
            Path out = Files.createDirectories(Path.of("target", "screenshots")).resolve(name + ".png");
            Files.copy(((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath(), out,
                    StandardCopyOption.REPLACE_EXISTING);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private <T> T await(org.openqa.selenium.support.ui.ExpectedCondition<T> condition) {
        return new WebDriverWait(driver, WAIT).until(condition);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
