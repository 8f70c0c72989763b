package dev.codexclient.approvals.browser;

import org.openqa.selenium.By;

/** The test's browser, for the benchmark's package. */
public final class BenchBrowser implements AutoCloseable {
    private final Browser browser;

    public BenchBrowser(int port) {
        this.browser = new Browser("bench", port);
    }

    public void signIn(String user) {
        browser.signIn(user);
    }

    public Object script(String js) {
        return browser.script(js);
    }

    /** Reloads the page and waits until it shows {@code n} pending cards. */
    public void reloadUntilCards(int n) {
        browser.reload();
        new org.openqa.selenium.support.ui.WebDriverWait(browser.driver(), Browser.WAIT)
                .until(d -> d.findElements(By.cssSelector("#pending article.entry")).size() >= n);
    }

    @Override
    public void close() {
        browser.close();
    }
}
