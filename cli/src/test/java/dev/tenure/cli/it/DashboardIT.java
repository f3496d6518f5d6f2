package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Pause;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The admin port's dashboard in a real headless Chromium (Debian's chromium and chromedriver,
 * driven by Selenium): the page lists a held lock with its holder and token; each time the lock
 * passes on, the new token shows without a reload; on a phone-width viewport the table is still
 * there; and on the survivor of a 3-node cluster with two nodes stopped it says "no quorum since".
 * Prints the page's load time and the live-update latency; screenshots go to target/dashboard/.
 */
class DashboardIT extends OnOneNode {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "dashboard");
    private static final int HANDOFFS = 10;
    private static final Duration WAIT = Processes.scaled(Duration.ofSeconds(30));

    private static WebDriver browser;

    @BeforeAll
    static void startANodeAndABrowser() throws Exception {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        // In CI the browser is installed (bin/test): its absence there is a failure, not a skip.
        if (!present && System.getenv("CI") == null) {
            Assumptions.abort("no chromium and chromedriver in /usr/bin (apt-get install chromium chromium-driver)");
        }
        assertThat(present).as("chromium and chromedriver in /usr/bin").isTrue();
        serve(new ServerProcess(data.resolve("node")).withAdmin());
        Files.createDirectories(SHOTS);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void closeTheBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void listsAHeldLockAndShowsEachHandoffWithoutAReload() throws Exception {
        String lock = "dash/orders";
        try (TenureClient client = server.patientClient();
                Session a = client.openSession();
                Session b = client.openSession()) {
            Lease held = a.acquire(lock);
            browser.get("http://127.0.0.1:" + server.adminPort() + "/");
            awaitToken(lock, held.token());
            long loadMs = ((Number) js("return Number(document.body.dataset.locksLoaded)")).longValue();
            String row = text(rowOf(lock));
            assertThat(row).contains(lock, "exclusive", Long.toString(held.token()));
            assertThat(text(rowOf(lock) + " .holder")).isEqualTo(Long.toString(a.id()));
            shot("held");

            List<Long> latencies = new ArrayList<>();
            Session waiting = b;
            Session holding = a;
            for (int i = 0; i < HANDOFFS; i++) {
                CompletableFuture<Lease> next = waiting.acquireAsync(lock, (Duration) null);
                CompletableFuture<Long> acknowledged = next.thenApply(lease -> System.currentTimeMillis());
                awaitWaiters(lock, 1);
                held.close(); // the waiter is granted at the release
                long ackMs = acknowledged.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                held = next.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                awaitToken(lock, held.token());
                long shownMs = ((Number)
                                js("return window.tenureTokenShown[arguments[0]]", Long.toString(held.token())))
                        .longValue();
                latencies.add(shownMs - ackMs);
                Session s = holding;
                holding = waiting;
                waiting = s;
            }
            shot("handed-on");
            Collections.sort(latencies);
            System.out.printf(
                    "DashboardIT: page load (navigation start to the lock table filled) %d ms; live update"
                            + " (grant acknowledged to the row changed) over %d handoffs: p50 %d ms, max %d ms%n",
                    loadMs, HANDOFFS, latencies.get(latencies.size() / 2), latencies.get(latencies.size() - 1));

            browser.manage().window().setSize(new Dimension(390, 844));
            browser.navigate().refresh();
            awaitToken(lock, held.token());
            assertThat(js("return document.querySelector(arguments[0]).getBoundingClientRect().width > 0", rowOf(lock)))
                    .isEqualTo(true);
            shot("phone");
            browser.manage().window().setSize(new Dimension(1280, 900));
            held.close();
        }
    }

    @Test
    void theSurvivorOfAClusterWithoutQuorumSaysSinceWhenAndMarksItsDataStale() throws Exception {
        try (ClusterProcess cluster = new ClusterProcess(data.resolve("cluster")).start()) {
            String endpoint = cluster.nodeEndpoints.get(0);
            int adminPort = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1)) + 1;
            try (TenureClient client = TenureClient.builder()
                            .endpoints(cluster.endpoints)
                            .requestTimeout(Processes.scaled(Duration.ofSeconds(20)))
                            .build();
                    Session s = client.openSession()) {
                Lease held = s.acquire("dash/cluster");
                browser.get("http://127.0.0.1:" + adminPort + "/");
                awaitToken("dash/cluster", held.token());
                cluster.kill9(1);
                cluster.kill9(2);
                until(
                        Processes.scaled(Duration.ofSeconds(90)),
                        d -> d.findElement(By.id("quorum")).getText().startsWith("no quorum since "));
                until(
                        WAIT,
                        d -> d.findElement(By.id("locks-panel"))
                                .getAttribute("class")
                                .contains("stale"));
                // What it last knew stays on the page, marked stale.
                assertThat(text(rowOf("dash/cluster") + " .token")).isEqualTo(Long.toString(held.token()));
                assertThat(browser.findElement(By.id("locks-state")).getText()).startsWith("stale: last read ");
                shot("no-quorum");
            }
        }
    }

    private static String rowOf(String lock) {
        return "#locks tr[data-lock='" + lock + "']";
    }

    private static void awaitToken(String lock, long token) throws InterruptedException {
        until(WAIT, d -> Long.toString(token).equals(text(rowOf(lock) + " .token")));
    }

    private static void awaitWaiters(String lock, int waiters) throws InterruptedException {
        until(WAIT, d -> Integer.toString(waiters).equals(text(rowOf(lock) + " .waiters")));
    }

    /** Polls the page until {@code done} holds, failing with the page's text after {@code timeout}. */
    private static void until(Duration timeout, Predicate<WebDriver> done) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!done.test(browser)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the page did not get there in " + timeout + "; it shows:\n"
                        + browser.findElement(By.tagName("body")).getText());
            }
            Pause.forMillis(10); // a DOM poll, short against the latencies it measures
        }
    }

    /** The text of the first element {@code selector} matches, or null: read in one script call. */
    private static String text(String selector) {
        return (String) js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null", selector);
    }

    private static Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    private static void shot(String name) throws Exception {
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
