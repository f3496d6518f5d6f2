package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The leader is cut off from its followers by a real network partition, while its clients can
 * still reach it: the deposed leader grants and renews nothing, the majority goes on, and after
 * the partition heals the old leader rejoins as a follower with nothing of its own kept.
 *
 * <p>Topology: a {@link NamespaceCluster} (a {@link dev.tenure.lab.process.LabNetwork}) this test creates and deletes (one namespace per node, a hub
 * namespace routing between them; nothing on the host's interfaces or firewall). Clients run in
 * the hub. The partition is
 * an nft rule set in the hub dropping all UDP (Aeron: consensus, log, catch-up, archive,
 * ingress/egress between gateways and the leader) between the leader's address and the other
 * two, both directions; TCP is untouched, so clients still reach the old leader's gateway.
 *
 * <p>Times come from {@link System#nanoTime()} here and in {@link PartitionWorker} (the same
 * monotonic clock on Linux). Figures are printed, not benchmarked; bounds only separate "the old
 * leader acknowledged nothing" from "it did".
 */
class PartitionIT {

    /** The holders' TTL: long enough for a cold client JVM on a loaded 2-core machine to renew in. */
    private static final Duration TTL = Processes.scaled(Duration.ofSeconds(8));

    private static final long DRIFT_MS = 300;

    @TempDir
    Path data;

    private NamespaceCluster cluster;
    private ProbeViews views;

    private static String endpoint(int node) {
        return NamespaceCluster.endpoint(node);
    }

    /**
     * Run with the default and with a read lease of 1 s: the reads through the cut-off leader
     * start long after its lease could last (no entry of its own commits after the cut).
     */
    @ParameterizedTest(name = "read lease {0}")
    @ValueSource(strings = {"off", "1s"})
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // a guard against hangs only; it takes about a minute
    void partitionedLeaderGrantsAndRenewsNothingAndTheMajorityGoesOn(String lease) throws Exception {
        long testStart = System.nanoTime();
        cluster = NamespaceCluster.create(data, "PartitionIT");
        if (!lease.equals("off")) {
            cluster.configLines.add("read-lease: " + lease);
        }
        views = new ProbeViews(cluster::diagnostics);
        cluster.startAll();
        views.follow(cluster.probe());

        // 1. A leader that all three nodes agree on.
        int leader = views.await(
                Duration.ofSeconds(90), testStart, "a leader all three nodes agree on", ProbeViews::agreedLeader);
        List<Integer> followers =
                IntStream.range(0, 3).filter(i -> i != leader).boxed().toList();
        String viaLeader = endpoint(leader);
        String viaMajority = endpoint(followers.get(0)) + "," + endpoint(followers.get(1));
        System.out.printf("PartitionIT: cluster up with leader %d after %d ms%n", leader, msSince(testStart));

        // 2. Holders connected to the leader only: the worker traces every acknowledged renewal,
        // the CLI holder is what a user runs.
        Processes.Running holder = cluster.client(Processes.worker(
                PartitionWorker.class.getName(),
                List.of(
                        "hold",
                        viaLeader,
                        "partition-a",
                        Long.toString(TTL.toMillis()),
                        Long.toString(DRIFT_MS),
                        Long.toString(Processes.scaled(Duration.ofSeconds(20)).toMillis()))));
        String[] granted = holder.nextLine(Duration.ofSeconds(30)).split(" ", -1);
        assertThat(granted[0]).as(holder.output()).isEqualTo("granted");
        long tokenA = Long.parseLong(granted[1]);
        long lifetimeNanos = Long.parseLong(granted[2]);
        long firstHorizon = horizon(holder.nextLine(Duration.ofSeconds(5)));

        Processes.Running cliHolder = tenure(
                patient("acquire", "partition-cli", "--json", "--ttl", TTL.toMillis() + "ms", "--endpoint", viaLeader));
        long tokenCli =
                json(cliHolder.nextLine(Duration.ofSeconds(30))).get("token").getAsLong();
        CompletableFuture<Long> cliHolderExit = exitTime(cliHolder);

        expectExit(
                0,
                "kv",
                "put",
                "partition-a/data",
                "before",
                "--lock",
                "partition-a",
                "--token",
                "" + tokenA,
                "--endpoint",
                viaLeader);

        // Renewals through the leader are acknowledged before the partition: the horizon moves.
        long horizonBefore = firstHorizon;
        while (horizonBefore == firstHorizon) {
            horizonBefore = horizon(holder.nextLine(Duration.ofSeconds(10)));
        }

        // 3. Partition: no UDP between the leader and the followers, either way.
        cluster.isolate(leader);
        long cut = System.nanoTime();

        // At once, while the old leader may still believe it leads: a new lock through it.
        long acquireB1Start = System.nanoTime();
        Processes.Running acquireB1 = tenure("acquire", "partition-b", "--no-wait", "--json", "--endpoint", viaLeader);
        CompletableFuture<Long> acquireB1Exit = exitTime(acquireB1);

        int newLeader = views.await(
                Duration.ofSeconds(20), cut, "the followers agreeing on a new leader among themselves", v -> {
                    ProbeViews.View a = v.get(followers.get(0));
                    ProbeViews.View b = v.get(followers.get(1));
                    return a != null
                                    && b != null
                                    && a.ok()
                                    && b.ok()
                                    && a.leader() == b.leader()
                                    && followers.contains(a.leader())
                            ? a.leader()
                            : null;
                });
        long newLeaderMs = views.firstAfter(cut, v -> followers.contains(v.node()) && v.ok() && v.leader() == newLeader)
                .map(v -> ms(v.atNanos() - cut))
                .orElse(-1L);
        // The cut-off leader hears from no follower: it must stop calling itself a healthy leader
        // (it does a few hundred ms after the majority agreed, so the figure is taken once it has).
        views.await(Duration.ofSeconds(20), cut, "the old leader to stop reporting itself healthy leader", v -> {
            ProbeViews.View old = v.get(leader);
            return old != null && !(old.ok() && old.leader() == leader) ? old : null;
        });
        long oldLeaderNoticedMs = views.firstAfter(cut, v -> v.node() == leader && !(v.ok() && v.leader() == leader))
                .map(v -> ms(v.atNanos() - cut))
                .orElseThrow();
        System.out.printf(
                "PartitionIT: partitioned leader %d; node %d leads the majority %d ms later;"
                        + " the old leader's gateway stopped reporting itself healthy leader after %d ms%n",
                leader, newLeader, newLeaderMs, oldLeaderNoticedMs);

        // The same through the old leader once the majority has moved on, and the majority's
        // waiter for lock A (granted when the holder's session expires).
        long acquireB2Start = System.nanoTime();
        Processes.Running acquireB2 = tenure("acquire", "partition-b", "--no-wait", "--json", "--endpoint", viaLeader);
        CompletableFuture<Long> acquireB2Exit = exitTime(acquireB2);
        // A fenced write through the old leader with the token its holder still believes in.
        Processes.Running minorityWrite = tenure(
                "kv",
                "put",
                "partition-a/data",
                "minority",
                "--lock",
                "partition-a",
                "--token",
                "" + tokenA,
                "--endpoint",
                viaLeader);
        Processes.Running waiterA = tenure(patient(
                "acquire", "partition-a", "--json", "--ttl", "10s", "--wait", "60s", "--endpoint", viaMajority));
        CompletableFuture<Timed> waiterGrant = firstLine(waiterA);

        // 4a. The holder behind the old leader: no renewal sent after the cut is ever acknowledged,
        // and it declares the lease lost by its horizon.
        // Checked on every line as it comes: a holder that keeps being renewed must fail here, not
        // keep the loop going.
        long lastHorizon = horizonBefore;
        String line = holder.nextLine(TTL.plusSeconds(10));
        while (line.startsWith("horizon ")) {
            lastHorizon = Math.max(lastHorizon, horizon(line));
            assertThat(lastHorizon - lifetimeNanos)
                    .as(
                            "a renewal sent %d ms after the cut was acknowledged: renewals sent after the cut went"
                                    + " through the partitioned leader and must never be acknowledged",
                            ms(lastHorizon - lifetimeNanos - cut))
                    .isLessThan(cut);
            line = holder.nextLine(TTL.plusSeconds(10));
        }
        long lastAckedSendMsBeforeCut = ms(cut - (lastHorizon - lifetimeNanos));
        String[] lost = line.split(" ", -1);
        assertThat(lost[0]).as(holder.output()).isEqualTo("lost");
        long lostAt = Long.parseLong(lost[2]);
        assertThat(lost[1]).isIn("HORIZON_PASSED", "SESSION_ENDED", "EXPIRED");
        assertThat(holder.waitFor(Duration.ofSeconds(10))).isEqualTo(4);
        long holderLostMs = ms(lostAt - cut);
        assertThat(lostAt - cut)
                .as("lost within the lifetime after the cut (a renewal acknowledged after the cut would push it later)")
                .isLessThanOrEqualTo(
                        lifetimeNanos + Processes.scaled(Duration.ofMillis(500)).toNanos());

        int cliCode = cliHolder.waitFor(TTL.plusSeconds(20));
        assertThat(cliCode)
                .as("CLI holder behind the old leader: %s", cliHolder.output())
                .isEqualTo(4);
        assertThat(cliHolder.output()).contains("lost");
        long cliLostMs = ms(cliHolderExit.get(5, TimeUnit.SECONDS) - cut);
        System.out.printf(
                "PartitionIT: holder behind the old leader declared %s %d ms after the cut (last acknowledged"
                        + " renewal sent %d ms before it, lifetime %d ms); CLI holder exited 4 after %d ms%n",
                lost[1], holderLostMs, lastAckedSendMsBeforeCut, ms(lifetimeNanos), cliLostMs);

        // 4b. A new lock through the old leader is never granted.
        for (Processes.Running b : List.of(acquireB1, acquireB2)) {
            boolean exited =
                    b.process.waitFor(Processes.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(exited)
                    .as(
                            "acquire of partition-b through the partitioned leader must fail, not hold a grant: %s",
                            b.output())
                    .isTrue();
            assertThat(b.waitFor(Duration.ofSeconds(1))).as(b.output()).isEqualTo(5);
            assertThat(b.stdout).as("no grant printed: %s", b.output()).noneMatch(l -> l.contains("token"));
        }
        System.out.printf(
                "PartitionIT: acquire of a new lock through the old leader: exit 5 after %d ms (started at the cut)"
                        + " and %d ms (started once the majority had a new leader), JVM start included%n",
                ms(acquireB1Exit.join() - acquireB1Start), ms(acquireB2Exit.join() - acquireB2Start));

        assertThat(minorityWrite.waitFor(Duration.ofSeconds(30)))
                .as("fenced write through the partitioned leader: %s", minorityWrite.output())
                .isEqualTo(5);

        // 4c. The majority grants lock A once the holder's session expired, after the holder gave up.
        Timed grantA = waiterGrant.get(Processes.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
        JsonObject grant = json(grantA.line);
        long newTokenA = grant.get("token").getAsLong();
        assertThat(grant.get("previous_end").getAsString()).as(grantA.line).isEqualTo("EXPIRED");
        assertThat(grant.get("previous_token").getAsLong()).isEqualTo(tokenA);
        assertThat(newTokenA).isGreaterThan(Math.max(tokenA, tokenCli));
        assertThat(grantA.atNanos)
                .as(
                        "the holder declared its lease lost (%d ms after the cut) before the majority granted the lock"
                                + " to someone else (%d ms)",
                        holderLostMs, ms(grantA.atNanos - cut))
                .isGreaterThan(lostAt);
        System.out.printf(
                "PartitionIT: majority granted partition-a (token %d, EXPIRED) %d ms after the cut, %d ms after the"
                        + " holder declared it lost%n",
                newTokenA, ms(grantA.atNanos - cut), ms(grantA.atNanos - lostAt));

        // A read waits for a command of its node's to commit (the read index), or for a lease
        // that such a command proved: the old leader, whose own state still shows the old holder,
        // must not answer it (no stale read naming the holder that lost the lock).
        Processes.Running minorityStatus = tenure("status", "partition-a", "--json", "--endpoint", viaLeader);
        Processes.Running minorityGet = tenure("kv", "get", "partition-a/data", "--json", "--endpoint", viaLeader);

        expectExit(
                0,
                "kv",
                "put",
                "partition-a/data",
                "after",
                "--lock",
                "partition-a",
                "--token",
                "" + newTokenA,
                "--endpoint",
                viaMajority);
        Processes.Running stale = expectExit(
                3,
                "kv",
                "put",
                "partition-a/data",
                "stale",
                "--lock",
                "partition-a",
                "--token",
                "" + tokenA,
                "--endpoint",
                viaMajority);
        assertThat(stale.output()).contains("current token is " + newTokenA);
        JsonObject value = json(expectExit(0, "kv", "get", "partition-a/data", "--json", "--endpoint", viaMajority)
                .nextLine(Duration.ofSeconds(1)));
        assertThat(value.get("value").getAsString()).isEqualTo("after");
        assertThat(value.get("token").getAsLong()).isEqualTo(newTokenA);

        for (Processes.Running read : List.of(minorityStatus, minorityGet)) {
            assertThat(read.waitFor(Duration.ofSeconds(30)))
                    .as("read through the partitioned leader: %s", read.output())
                    .isEqualTo(5);
            // No answer: under --json the one line on stdout is the failure itself.
            assertThat(read.stdout).as(read.output()).hasSize(1);
            JsonObject failure = json(read.stdout.peek());
            assertThat(failure.get("code").getAsString()).as(read.output()).isEqualTo("UNAVAILABLE");
            assertThat(failure.get("exit").getAsInt()).isEqualTo(5);
            assertThat(failure.has("value") || failure.has("holder")).isFalse();
        }

        // 4d. Nothing the minority side did is visible on the majority.
        assertNeverHeld("partition-b", viaMajority);

        // 5. Heal: the old leader rejoins as a follower and every node agrees on the leader.
        List<Long> dropped = cluster.droppedPackets();
        System.out.printf(
                "PartitionIT: the partition dropped %d UDP packets from the old leader and %d to it%n",
                dropped.get(0), dropped.get(1));
        assertThat(dropped).as("both rules dropped traffic").allMatch(n -> n > 0);
        cluster.heal();
        long healed = System.nanoTime();
        int leaderAfter =
                views.await(Duration.ofSeconds(45), healed, "all three nodes agreeing again", ProbeViews::agreedLeader);
        System.out.printf(
                "PartitionIT: healed; all three nodes agree on leader %d after %d ms%n", leaderAfter, msSince(healed));
        assertThat(leaderAfter)
                .as("the old leader rejoins as a follower")
                .isNotEqualTo(leader)
                .isEqualTo(newLeader);
        System.out.println("PartitionIT: what each node's gateway said (ms after the cut, leader, health):\n"
                + views.changes(cut));

        // The old leader is a working follower again, not only a gateway that reaches the new
        // leader: with the other follower stopped, nothing commits without the old leader's vote.
        // (SIGTERM rather than -9: a stopped node removes its Aeron files from /dev/shm.)
        int otherFollower =
                followers.stream().filter(f -> f != newLeader).findFirst().orElseThrow();
        cluster.node(otherFollower).process.destroy();
        assertThat(cluster.node(otherFollower).process.waitFor(30, TimeUnit.SECONDS))
                .as("node %d stops on SIGTERM", otherFollower)
                .isTrue();
        long otherKilled = System.nanoTime();

        // Through the old leader's gateway now: tokens continue upward, lock A is the majority's,
        // and lock B was never granted anywhere.
        Processes.Running acquireC =
                tenure(patient("acquire", "partition-c", "--no-wait", "--json", "--endpoint", viaLeader));
        long tokenC =
                json(acquireC.nextLine(Duration.ofSeconds(30))).get("token").getAsLong();
        System.out.printf(
                "PartitionIT: node %d stopped; a grant through the old leader, now the only follower, %d ms later"
                        + " (JVM start included)%n",
                otherFollower, msSince(otherKilled));
        assertThat(tokenC).as("tokens continue upward").isGreaterThan(Math.max(newTokenA, Math.max(tokenA, tokenCli)));
        acquireC.signal("TERM");
        assertThat(acquireC.waitFor(Duration.ofSeconds(30)))
                .as(acquireC.output())
                .isZero();

        JsonObject statusA = json(expectExit(0, "status", "partition-a", "--json", "--endpoint", viaLeader)
                .nextLine(Duration.ofSeconds(1)));
        assertThat(statusA.getAsJsonObject("holder").get("token").getAsLong()).isEqualTo(newTokenA);
        assertNeverHeld("partition-b", viaLeader);
        JsonObject statusCli = json(expectExit(0, "status", "partition-cli", "--json", "--endpoint", viaLeader)
                .nextLine(Duration.ofSeconds(1)));
        assertThat(statusCli.get("holder").isJsonNull())
                .as(statusCli.toString())
                .isTrue();
        var cliHistory = statusCli.getAsJsonArray("history");
        JsonObject cliTenure = cliHistory.get(cliHistory.size() - 1).getAsJsonObject();
        assertThat(cliTenure.get("token").getAsLong()).as(statusCli.toString()).isEqualTo(tokenCli);
        assertThat(cliTenure.get("end").getAsString()).as(statusCli.toString()).isEqualTo("EXPIRED");
        // The write sent through the old leader during the partition never landed, not even later.
        JsonObject valueAfter = json(expectExit(0, "kv", "get", "partition-a/data", "--json", "--endpoint", viaLeader)
                .nextLine(Duration.ofSeconds(1)));
        assertThat(valueAfter.get("value").getAsString()).isEqualTo("after");
        assertThat(valueAfter.get("token").getAsLong()).isEqualTo(newTokenA);

        waiterA.signal("TERM");
        assertThat(waiterA.waitFor(Duration.ofSeconds(30))).as(waiterA.output()).isZero();
        System.out.printf("PartitionIT: done in %d ms%n", msSince(testStart));
    }

    // ---- clients, all in the hub namespace ---------------------------------------------------

    private Processes.Running tenure(String... args) throws IOException {
        return cluster.tenure(args);
    }

    private static String[] patient(String... args) {
        return NamespaceCluster.patient(args);
    }

    private Processes.Running expectExit(int code, String... args) throws Exception {
        return cluster.expectExit(code, args);
    }

    private void assertNeverHeld(String lock, String endpoints) throws Exception {
        JsonObject status = json(
                expectExit(0, "status", lock, "--json", "--endpoint", endpoints).nextLine(Duration.ofSeconds(1)));
        assertThat(status.get("holder").isJsonNull())
                .as("%s via %s: %s", lock, endpoints, status)
                .isTrue();
        assertThat(status.getAsJsonArray("history"))
                .as("%s via %s: %s", lock, endpoints, status)
                .isEmpty();
        assertThat(status.getAsJsonArray("waiters"))
                .as("%s via %s: %s", lock, endpoints, status)
                .isEmpty();
    }

    private record Timed(String line, long atNanos) {}

    private static CompletableFuture<Long> exitTime(Processes.Running p) {
        return p.process.onExit().thenApply(x -> System.nanoTime());
    }

    /** The process's first stdout line with the time it arrived. */
    private static CompletableFuture<Timed> firstLine(Processes.Running p) {
        CompletableFuture<Timed> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                String line = p.stdout.take();
                f.complete(new Timed(line, System.nanoTime()));
            } catch (InterruptedException e) {
                f.completeExceptionally(e);
            }
        });
        t.setDaemon(true);
        t.start();
        return f;
    }

    private static long horizon(String line) {
        assertThat(line)
                .as(
                        "the holder's next event (lost before the partition: the machine is too loaded for a %s TTL;"
                                + " raise -Dtenure.test.timeScale)",
                        TTL)
                .startsWith("horizon ");
        return Long.parseLong(line.substring("horizon ".length()));
    }

    private static JsonObject json(String line) {
        return JsonParser.parseString(line).getAsJsonObject();
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static long msSince(long startNanos) {
        return ms(System.nanoTime() - startNanos);
    }

    @AfterEach
    void cleanUp() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
