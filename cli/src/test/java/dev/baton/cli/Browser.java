package dev.baton.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's chromium, headless, driven through Debian's chromedriver: both found at fixed paths, so Selenium Manager
 * never runs and nothing is downloaded. Without them the test is skipped, except under CI=true, where it fails.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Where the screenshots go (test artifacts). */
    static final Path SCREENSHOTS = Path.of("target", "browser-screenshots");

    final ChromeDriver driver;
    final WebDriverWait wait;

    private Browser(ChromeDriver driver) {
        this.driver = driver;
        this.wait = new WebDriverWait(driver, Duration.ofSeconds(30));
    }

    /** Skips (locally) or fails (CI=true) when chromium or chromedriver is not installed. */
    static void assumeInstalled() {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (installed) return;
        String why = "the browser tests need Debian's chromium and chromium-driver (" + CHROMIUM + ", " + CHROMEDRIVER
                + "): apt-get install -y chromium chromium-driver";
        if ("true".equals(System.getenv("CI"))) Assertions.fail(why);
        Assumptions.abort(why);
    }

    static Browser start() {
        assumeInstalled();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // --no-sandbox: the tests run as root in CI's container, where chromium's sandbox cannot start
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        return new Browser(new ChromeDriver(service, options));
    }

    Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    /** Saves a screenshot of the window under {@link #SCREENSHOTS}; returns its path. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether an alert (or confirm, prompt) is open: a hostile fixture that ran would have opened one. */
    boolean alertOpen() {
        try {
            driver.switchTo().alert();
            return true;
        } catch (NoAlertPresentException none) {
            return false;
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
