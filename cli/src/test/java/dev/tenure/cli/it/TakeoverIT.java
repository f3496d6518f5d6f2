package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.lab.fault.FaultMode;
import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.testkit.Pause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failure modes 1, 3 and 5 against a real server process and real client processes: a holder
 * killed with -9, a holder paused with SIGSTOP past its TTL, a stale release and a stale fenced
 * write. Timing assertions only bound what must not wait for a TTL; they are not benchmarks.
 */
class TakeoverIT extends OnOneNode {

    @BeforeAll
    static void start() throws Exception {
        // The forced release below is an admin act; this node has no ACL to name an admin, so it
        // opts in to letting anyone force (OpenNodeIT shows the default, a refusal).
        serve(new ServerProcess(data).withOptions("--unsafe-allow-forced-release"));
    }

    @Test
    void killedHolderHandsOverAtOnceAndItsTokenIsFencedOff() throws Exception {
        try (var holder = tenure("acquire", "crash-lock", "--ttl", "30s", "--json")) {
            JsonObject first = json(holder.nextLine(Duration.ofSeconds(30)));
            long oldToken = first.get("token").getAsLong();
            assertThat(first.get("previous_end").getAsString()).isEqualTo("NONE");
            try (var waiter = tenure("acquire", "crash-lock", "--json")) {
                cli.awaitQueued("crash-lock", waiter);
                handOver(holder, waiter, oldToken);
            }
        }
        var after = tenure("status", "crash-lock", "--json");
        assertThat(after.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        JsonObject view = json(after.nextLine(Duration.ofSeconds(1)));
        assertThat(view.get("holder").isJsonNull()).isTrue();
        var history = view.getAsJsonArray("history");
        assertThat(history.get(history.size() - 1).getAsJsonObject().get("end").getAsString())
                .isEqualTo("REVOKED"); // forced (see handOver)
        assertThat(history.get(history.size() - 2).getAsJsonObject().get("end").getAsString())
                .isEqualTo("DISCONNECTED");
    }

    /**
     * A holder with a disconnect grace whose connection is reset by the network (a proxy resets
     * it, the process lives) resumes its session and keeps the lock; killed, it hands the lock
     * over after the grace, not at once and not after the TTL.
     */
    @Test
    void aResetConnectionWithAGraceKeepsTheLeaseAndADeadHolderHandsOverAfterTheGrace() throws Exception {
        try (FaultProxy link = new FaultProxy("holder-link", server.endpoint());
                var holder = tenure(
                        "acquire",
                        "grace-lock",
                        "--ttl",
                        "30s",
                        "--disconnect-grace",
                        "3s",
                        "--json",
                        "--endpoint",
                        link.endpoint())) {
            JsonObject first = json(holder.nextLine(Duration.ofSeconds(30)));
            long token = first.get("token").getAsLong();
            try (var waiter = tenure("acquire", "grace-lock", "--json")) {
                cli.awaitQueued("grace-lock", waiter);
                link.mode(FaultMode.RESET); // every connection reset, new ones too
                Pause.forMillis(500); // how long the resets last
                link.mode(FaultMode.PASS);
                Pause.forMillis(6_000); // twice the grace: a session ended by the reset would have passed on
                assertThat(waiter.stdout.poll())
                        .as("the waiter was not granted")
                        .isNull();
                assertThat(holder.process.isAlive())
                        .as("the holder kept its lease")
                        .isTrue();
                var status = tenure("status", "grace-lock", "--json");
                assertThat(status.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
                assertThat(json(status.nextLine(Duration.ofSeconds(1)))
                                .getAsJsonObject("holder")
                                .get("token")
                                .getAsLong())
                        .isEqualTo(token);

                Takeover t = killAndAwaitTakeover(holder, waiter, token, Duration.ofSeconds(30));
                assertThat(t.ms())
                        .as("after the 3 s grace, long before the 30 s TTL")
                        .isBetween(2_800L, 20_000L);
                waiter.signal("TERM");
                assertThat(waiter.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
            }
        }
    }

    /** The waiter's grant after the holder's kill -9, and how long after the kill it came. */
    private record Takeover(JsonObject grant, long ms) {}

    /** Kills the holder and waits for the waiter's grant, which must name the dead holder's end. */
    private static Takeover killAndAwaitTakeover(
            Processes.Running holder, Processes.Running waiter, long oldToken, Duration patience) throws Exception {
        long killedAt = System.nanoTime();
        holder.kill9();
        JsonObject grant = json(waiter.nextLine(patience));
        long ms = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(grant.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
        assertThat(grant.get("previous_token").getAsLong()).isEqualTo(oldToken);
        return new Takeover(grant, ms);
    }

    private static void handOver(Processes.Running holder, Processes.Running waiter, long oldToken) throws Exception {
        Takeover t = killAndAwaitTakeover(holder, waiter, oldToken, Duration.ofSeconds(20));
        JsonObject second = t.grant();
        long takeoverMs = t.ms();
        assertThat(second.get("token").getAsLong()).isGreaterThan(oldToken);
        assertThat(takeoverMs).as("takeover must not wait for the 30 s TTL").isLessThan(10_000);

        // The dead holder's token is refused by the fenced KV, naming the current token.
        var put = tenure("kv", "put", "crash-key", "stale", "--lock", "crash-lock", "--token", Long.toString(oldToken));
        assertThat(put.waitFor(Duration.ofSeconds(30))).isEqualTo(3);
        assertThat(put.output())
                .contains("current token is " + second.get("token").getAsLong());

        // A stale release changes nothing.
        var release = tenure("release", "crash-lock", "--token", Long.toString(oldToken));
        assertThat(release.waitFor(Duration.ofSeconds(30))).isEqualTo(3);
        var status = tenure("status", "crash-lock", "--json");
        assertThat(status.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        JsonObject view = json(status.nextLine(Duration.ofSeconds(1)));
        assertThat(view.getAsJsonObject("holder").get("token").getAsLong())
                .isEqualTo(second.get("token").getAsLong());

        // The current token, released from another session, is not that session's: NOT_OWNER.
        String current = Long.toString(second.get("token").getAsLong());
        var notOwner = tenure("release", "crash-lock", "--token", current);
        assertThat(notOwner.waitFor(Duration.ofSeconds(30))).isEqualTo(3);
        var unchanged = tenure("status", "crash-lock", "--json");
        assertThat(unchanged.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        assertThat(json(unchanged.nextLine(Duration.ofSeconds(1)))
                        .getAsJsonObject("holder")
                        .get("token")
                        .getAsString())
                .isEqualTo(current);

        // A forced release ends it REVOKED and names its session; the holder is told and exits 4.
        var forced = tenure("release", "crash-lock", "--token", current, "--force");
        assertThat(forced.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        assertThat(waiter.waitFor(Duration.ofSeconds(30))).isEqualTo(4);
        var after = tenure("status", "crash-lock", "--json");
        assertThat(after.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        JsonObject afterView = json(after.nextLine(Duration.ofSeconds(1)));
        var history = afterView.getAsJsonArray("history");
        JsonObject last = history.get(history.size() - 1).getAsJsonObject();
        assertThat(last.get("token").getAsString()).isEqualTo(current);
        assertThat(last.get("end").getAsString()).isEqualTo("REVOKED");
        assertThat(last.getAsJsonObject("forced_by").get("session").getAsLong())
                .isNotEqualTo(second.get("session").getAsLong());
        assertThat(history.get(history.size() - 2)
                        .getAsJsonObject()
                        .get("forced_by")
                        .isJsonNull())
                .isTrue();
    }

    @Test
    void pausedHolderLosesTheLockAndItsWritesAreRejected() throws Exception {
        try (var holder = new Processes.Running(
                Processes.worker(
                        PausableHolder.class.getName(), List.of(server.endpoint(), "pause-lock", "pause-key", "5000")),
                Map.of())) {
            long token = Long.parseLong(holder.nextLine(Duration.ofSeconds(30)).substring("granted ".length()));
            assertThat(holder.nextLine(Duration.ofSeconds(10))).isEqualTo("put ok");

            holder.signal("STOP");
            try (var waiter = tenure("acquire", "pause-lock", "--json")) {
                JsonObject grant = json(waiter.nextLine(Duration.ofSeconds(30)));
                assertThat(grant.get("previous_end").getAsString()).isEqualTo("EXPIRED");
                assertThat(grant.get("previous_token").getAsLong()).isEqualTo(token);
                long newToken = grant.get("token").getAsLong();
                var write = tenure(
                        "kv",
                        "put",
                        "pause-key",
                        "new owner",
                        "--lock",
                        "pause-lock",
                        "--token",
                        Long.toString(newToken));
                assertThat(write.waitFor(Duration.ofSeconds(30))).isEqualTo(0);

                holder.signal("CONT");
                List<String> lines = new ArrayList<>();
                String line;
                do {
                    line = holder.nextLine(Duration.ofSeconds(30));
                    lines.add(line);
                } while (!line.startsWith("put rejected") || lines.stream().noneMatch(l -> l.startsWith("lost")));
                assertThat(lines).contains("put rejected current=" + newToken);
                assertThat(lines).anyMatch(l -> l.startsWith("lost "));

                // The stale holder's writes did not land: the new owner's value stands.
                var get = tenure("kv", "get", "pause-key", "--json");
                assertThat(get.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
                JsonObject value = json(get.nextLine(Duration.ofSeconds(1)));
                assertThat(value.get("value").getAsString()).isEqualTo("new owner");
                assertThat(value.get("token").getAsLong()).isEqualTo(newToken);
            }
        }
    }
}
