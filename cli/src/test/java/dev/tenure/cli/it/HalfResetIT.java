package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.lab.fault.FaultMode;
import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Half resets with default options, real processes on both ends: a holder runs {@code tenure
 * acquire} through a {@link FaultProxy}, a waiter connects directly. The proxy cuts the holder's
 * connection on one side only, as a middlebox that lost its state does, leaving the other side
 * open and silent. The invariant: no grant to the waiter while the holder still holds (runs).
 * Either the holder resumes on a new connection and keeps the lock, or it stops (exit 4) before
 * the node's disconnect grace ends. The order is judged at its source: the time by which each
 * process of the holder had ended ({@link TreeWatch}, never too early) against the grant time the
 * node wrote into the waiter's grant, not the time this test read the waiter's output. Times are
 * printed for the record; the assertions bound only the order of events and what must not wait
 * for the TTL.
 */
class HalfResetIT extends OnOneNode {

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
            cli.awaitQueued(lock, waiter);
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

    /**
     * `tenure run`: its whole command tree, and the `tenure run` JVM, ended before the waiter's
     * grant: each process's end as {@link TreeWatch} records it (never too early), against the
     * grant time the node wrote into the grant.
     */
    @Test
    void aRunWhoseConnectionCannotBeResumedStopsItsCommandTreeBeforeTheWaitersGrant() throws Exception {
        String lock = "half-run";
        try (FaultProxy link = new FaultProxy("holder-link", server.endpoint());
                var holder = tenure(
                        "run",
                        lock,
                        "--ttl",
                        "30s",
                        "--endpoint",
                        link.endpoint(),
                        "--timeout",
                        TIMEOUT,
                        "--",
                        "sh",
                        "-c",
                        "sleep 120 & sleep 121")) {
            // The command's own process group (led by its shell), as both sleeps show it.
            String group = Await.atMost(Duration.ofSeconds(30))
                    .failureDetails(holder::output)
                    .until(
                            "the command's tree runs",
                            () -> ProcessTree.live(lock).stream()
                                    .filter(p -> p.split(" ", 4)[3].startsWith("sleep 12"))
                                    .map(p -> p.split(" ", 4)[2])
                                    .toList(),
                            groups -> groups.size() == 2)
                    .get(0);
            try (var waiter = tenure("acquire", lock, "--json", "--timeout", TIMEOUT);
                    TreeWatch watch = new TreeWatch(lock, holder.pid())) {
                cli.awaitQueued(lock, waiter);
                link.mode(FaultMode.BLACKHOLE);
                Instant cut = Instant.now();
                link.cutServerSide(true);
                JsonObject grant = json(waiter.nextLine(Duration.ofSeconds(20)));
                long grantedAtMs = grant.get("granted_at_ms").getAsLong();
                assertThat(holder.waitFor(Duration.ofSeconds(10))).isEqualTo(4);
                Await.atMost(Duration.ofSeconds(10))
                        .until("every process of the holder ended", watch::allEnded, all -> all != null);
                // The command's own process group (the shell and both sleeps) ran under the lease; the
                // supervisor and the JVM run none of the command's code, and may still be closing.
                Predicate<String> command = p -> !p.contains("(given)") && p.split(" ", 4)[2].equals(group);
                Instant commandEnded = watch.ended(command);
                System.out.println("[half reset, tenure run, no resume] cut at 0 ms; the command's process group"
                        + " ended by " + TreeWatch.ms(cut, commandEnded) + " ms; every process of the holder by "
                        + TreeWatch.ms(cut, watch.allEnded()) + " ms; waiter granted at "
                        + (grantedAtMs - cut.toEpochMilli()) + " ms (granted_at_ms); resolution "
                        + watch.resolution().toMillis() + " ms; each process ended by:" + watch.report(cut));
                assertThat(watch.seen())
                        .as("the JVM, the supervisor, the shell and two sleeps (and the supervisor's helpers)")
                        .isGreaterThanOrEqualTo(5);
                assertThat(grant.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
                assertThat(grantedAtMs).isGreaterThanOrEqualTo(cut.toEpochMilli());
                assertThat(watch.endedBefore(grantedAtMs, command))
                        .as(
                                "every process of the command's group %s ended before the grant at %d ms:%s",
                                group, grantedAtMs - cut.toEpochMilli(), watch.report(cut))
                        .isTrue();
            }
        }
    }

    /**
     * The holder, `tenure acquire`, exits 4 once its lease is no longer valid: its exit, as {@link
     * TreeWatch} records it (never too early), bounds the moment it stopped trusting the lease, and
     * must come strictly before the grant time the node wrote into the waiter's grant.
     */
    private void stopsBeforeTheGrant(String lock, boolean rst) throws Exception {
        try (FaultProxy link = new FaultProxy("holder-link", server.endpoint());
                var holder = holderThrough(link, lock);
                var waiter = waiterAfter(holder, lock)) {
            long token =
                    json(holder.nextLine(Duration.ofSeconds(30))).get("token").getAsLong();
            cli.awaitQueued(lock, waiter);
            link.mode(FaultMode.BLACKHOLE); // new connections are accepted, then silent: no resume
            try (TreeWatch watch = new TreeWatch(lock, holder.pid())) {
                assertThat(watch.seen()).as("the holder's JVM").isEqualTo(1);
                Instant cut = Instant.now();
                link.cutServerSide(rst);

                JsonObject grant = json(waiter.nextLine(Duration.ofSeconds(20)));
                long grantedAtMs = grant.get("granted_at_ms").getAsLong();
                assertThat(holder.waitFor(Duration.ofSeconds(5))).isEqualTo(4);
                Await.atMost(Duration.ofSeconds(10))
                        .until("the holder's exit recorded", watch::allEnded, all -> all != null);
                long stoppedMs = TreeWatch.ms(cut, watch.allEnded());
                long grantedMs = grantedAtMs - cut.toEpochMilli();
                System.out.println("[half reset, " + (rst ? "RST" : "FIN") + " to the server, no resume] cut at 0"
                        + " ms; the holder exited 4 by " + stoppedMs + " ms; waiter granted at " + grantedMs
                        + " ms (granted_at_ms); resolution "
                        + watch.resolution().toMillis() + " ms");
                assertThat(holder.output()).contains("CONNECTION_IN_DOUBT");
                assertThat(grant.get("previous_token").getAsLong()).isEqualTo(token);
                assertThat(grant.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
                assertThat(grantedAtMs).isGreaterThanOrEqualTo(cut.toEpochMilli());
                assertThat(watch.endedBefore(grantedAtMs))
                        .as("the holder exited (by %d ms) before the waiter's grant (%d ms)", stoppedMs, grantedMs)
                        .isTrue();
                assertThat(grantedMs)
                        .as("the waiter waits the grace, not the TTL")
                        .isLessThan(Processes.scaled(Duration.ofSeconds(5)).toMillis());
            }
        }
    }

    private static Processes.Running holderThrough(FaultProxy link, String lock) throws Exception {
        return tenure("acquire", lock, "--ttl", "30s", "--json", "--endpoint", link.endpoint());
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

    /**
     * The clients' request timeout (5 s by default), times the test time scale: on a loaded
     * machine a client's first session open may take longer, which is not what these tests are
     * about.
     */
    private static final String TIMEOUT =
            Processes.scaled(Duration.ofSeconds(5)).toMillis() + "ms";

    private static long msSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Waits for the holder's next connection through the proxy; returns how long after the cut it came. */
    private static long awaitNewConnection(FaultProxy link, long before, long cut) throws InterruptedException {
        Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(5))
                .until("the holder reconnects", () -> link.accepted() != before);
        return msSince(cut);
    }
}
