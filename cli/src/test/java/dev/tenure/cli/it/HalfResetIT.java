package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.lab.fault.FaultMode;
import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.testkit.Pause;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Half resets with default options, real processes on both ends: a holder runs {@code tenure
 * acquire} through a {@link FaultProxy}, a waiter connects directly. The proxy cuts the holder's
 * connection on one side only, as a middlebox that lost its state does, leaving the other side
 * open and silent. The invariant: no grant to the waiter while the holder still holds (runs).
 * Either the holder resumes on a new connection and keeps the lock, or it stops (exit 4) before
 * the node's disconnect grace ends. Times are printed for the record; the assertions bound only
 * the order of events and what must not wait for the TTL.
 */
class HalfResetIT {

    @TempDir
    static Path data;

    static ServerProcess server;
    static TenureCli cli;

    @BeforeAll
    static void start() throws Exception {
        server = new ServerProcess(data).start();
        cli = new TenureCli(server.endpoint());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aServerSideResetIsResumedOnANewConnectionAndTheLockStays() throws Exception {
        resumedAndTheLockStays("half-rst-resume", "RST to the server", link -> link.cutServerSide(true));
    }

    @Test
    void aClientSideResetIsResumedAndTheLockStays() throws Exception {
        // the server's side stays open and silent: it never learns of the cut
        resumedAndTheLockStays("half-client-rst", "RST to the client", FaultProxy::cutClientSide);
    }

    private void resumedAndTheLockStays(String lock, String what, Consumer<FaultProxy> cut) throws Exception {
        try (FaultProxy link = new FaultProxy("holder-link", server.endpoint());
                var holder = holderThrough(link, lock);
                var waiter = waiterAfter(holder, lock)) {
            long token =
                    json(holder.nextLine(Duration.ofSeconds(30))).get("token").getAsLong();
            cli.awaitQueued(lock);
            long before = link.accepted();
            long cutAt = System.nanoTime();
            cut.accept(link);
            long resumedMs = awaitNewConnection(link, before, cutAt);
            System.out.println("[half reset, " + what + "] holder reconnected " + resumedMs + " ms after the cut");
            Pause.forMillis(3_000); // several graces: a session ended by the reset would have passed on
            assertThat(waiter.stdout.poll()).as("the waiter was not granted").isNull();
            assertThat(holder.process.isAlive()).as("the holder still holds").isTrue();
            assertThat(cli.holderToken(lock)).isEqualTo(token);
        }
    }

    @Test
    void aServerSideResetThatCannotBeResumedStopsTheHolderBeforeTheWaitersGrant() throws Exception {
        stopsBeforeTheGrant("half-rst-stuck", true);
    }

    /**
     * A clean FIN reaches the node exactly as a process exit would, yet here the holder lives: the
     * node cannot take a FIN as proof of death, so it waits out the grace too (docs/architecture.md).
     */
    @Test
    void aServerSideFinThatCannotBeResumedStopsTheHolderBeforeTheWaitersGrant() throws Exception {
        stopsBeforeTheGrant("half-fin-stuck", false);
    }

    /** `tenure run`: its whole command tree is gone before the waiter's grant. */
    @Test
    void aRunWhoseConnectionCannotBeResumedStopsItsCommandTreeBeforeTheWaitersGrant() throws Exception {
        String lock = "half-run";
        try (FaultProxy link = new FaultProxy("holder-link", server.endpoint());
                var holder = new Processes.Running(
                        Processes.tenure(List.of(
                                "run",
                                lock,
                                "--ttl",
                                "30s",
                                "--endpoint",
                                link.endpoint(),
                                "--",
                                "sh",
                                "-c",
                                "sleep 120 & sleep 121")),
                        Map.of())) {
            long deadline =
                    System.nanoTime() + Processes.scaled(Duration.ofSeconds(30)).toNanos();
            while (ProcessTree.live(lock).stream()
                            .filter(p -> p.contains("sleep"))
                            .count()
                    < 2) {
                assertThat(System.nanoTime())
                        .as("the command runs; %s", holder.output())
                        .isLessThan(deadline);
                Pause.forMillis(20);
            }
            try (var waiter = tenure("acquire", lock, "--json")) {
                cli.awaitQueued(lock);
                link.mode(FaultMode.BLACKHOLE);
                long cut = System.nanoTime();
                link.cutServerSide(true);
                long goneAt = 0;
                String grant = null;
                while (grant == null) {
                    assertThat(System.nanoTime() - cut)
                            .as("the waiter is granted")
                            .isLessThan(Processes.scaled(Duration.ofSeconds(20)).toNanos());
                    if (goneAt == 0 && ProcessTree.live(lock).isEmpty()) {
                        goneAt = System.nanoTime();
                    }
                    grant = waiter.stdout.poll(2, TimeUnit.MILLISECONDS);
                }
                long grantedMs = msSince(cut);
                assertThat(goneAt)
                        .as(
                                "no process of the command's tree was left before the grant (%d ms); left: %s",
                                grantedMs, ProcessTree.live(lock))
                        .isNotZero();
                assertThat(holder.waitFor(Duration.ofSeconds(10))).isEqualTo(4);
                System.out.println("[half reset, tenure run, no resume] command tree gone "
                        + TimeUnit.NANOSECONDS.toMillis(goneAt - cut) + " ms after the cut, waiter granted " + grantedMs
                        + " ms after it");
            }
        }
    }

    private void stopsBeforeTheGrant(String lock, boolean rst) throws Exception {
        try (FaultProxy link = new FaultProxy("holder-link", server.endpoint());
                var holder = holderThrough(link, lock);
                var waiter = waiterAfter(holder, lock)) {
            long token =
                    json(holder.nextLine(Duration.ofSeconds(30))).get("token").getAsLong();
            cli.awaitQueued(lock);
            link.mode(FaultMode.BLACKHOLE); // new connections are accepted, then silent: no resume
            AtomicLong exitedAt = new AtomicLong();
            holder.process.onExit().thenRun(() -> exitedAt.set(System.nanoTime()));
            long cut = System.nanoTime();
            link.cutServerSide(rst);

            JsonObject grant = json(waiter.nextLine(Duration.ofSeconds(20)));
            long grantedMs = msSince(cut);
            assertThat(holder.process.isAlive())
                    .as(
                            "the holder stopped before the waiter's grant (%d ms after the cut); output:\n%s",
                            grantedMs, holder.output())
                    .isFalse();
            assertThat(holder.waitFor(Duration.ofSeconds(5))).isEqualTo(4);
            long stoppedMs = TimeUnit.NANOSECONDS.toMillis(exitedAt.get() - cut);
            assertThat(holder.output()).contains("CONNECTION_IN_DOUBT");
            assertThat(grant.get("previous_token").getAsLong()).isEqualTo(token);
            assertThat(grant.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
            assertThat(grantedMs)
                    .as("the waiter waits the grace, not the TTL")
                    .isLessThan(Processes.scaled(Duration.ofSeconds(5)).toMillis());
            System.out.println("[half reset, " + (rst ? "RST" : "FIN") + " to the server, no resume] waiter granted "
                    + grantedMs + " ms after the cut; the holder exited 4 at " + stoppedMs + " ms");
        }
    }

    private static Processes.Running holderThrough(FaultProxy link, String lock) throws Exception {
        return new Processes.Running(
                Processes.tenure(List.of("acquire", lock, "--ttl", "30s", "--json", "--endpoint", link.endpoint())),
                Map.of());
    }

    /** Starts the waiter once the holder is granted (the grant line is put back for the test to read). */
    private static Processes.Running waiterAfter(Processes.Running holder, String lock) throws Exception {
        String grant;
        try {
            grant = holder.nextLine(Duration.ofSeconds(30));
        } catch (AssertionError e) {
            throw new AssertionError(
                    "holder " + holder.process.info().commandLine().orElse("?") + ": " + e.getMessage(), e);
        }
        holder.stdout.add(grant);
        return tenure("acquire", lock, "--json");
    }

    static Processes.Running tenure(String... args) throws Exception {
        return cli.run(args);
    }

    static JsonObject json(String line) {
        return TenureCli.json(line);
    }

    private static long msSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Waits for the holder's next connection through the proxy; returns how long after the cut it came. */
    private static long awaitNewConnection(FaultProxy link, long before, long cut) throws InterruptedException {
        long deadline =
                System.nanoTime() + Processes.scaled(Duration.ofSeconds(10)).toNanos();
        while (link.accepted() == before) {
            assertThat(System.nanoTime()).as("the holder reconnects").isLessThan(deadline);
            Pause.forMillis(5);
        }
        return msSince(cut);
    }
}
