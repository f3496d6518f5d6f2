package dev.tenure.cli.it;

import static dev.tenure.cli.it.TenureCli.TENURE_FUNCTION;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints, maxHold, lock delay and stale-write counts against a real server process and real
 * `tenure` client processes.
 */
class PolicyIT extends OnOneNode {

    @Test
    void aRunCommandResumesFromTheCheckpointOfAHolderKilledMidWork() throws Exception {
        // The first holder records its progress, then is killed -9 mid-work.
        var first = tenure(
                "run",
                "ck-lock",
                "--ttl",
                "30s",
                "--",
                "sh",
                "-c",
                TENURE_FUNCTION
                        + "tenure checkpoint --lock \"$TENURE_LOCK\" --token \"$TENURE_TOKEN\" 'row 41' >/dev/null"
                        + " && echo written; while kill -0 $PPID 2>/dev/null; do sleep 0.2; done");
        assertThat(first.nextLine(Duration.ofSeconds(60))).isEqualTo("written");
        first.kill9();

        var second = tenure(
                "run",
                "ck-lock",
                "--",
                "sh",
                "-c",
                TENURE_FUNCTION
                        + "echo \"$TENURE_CHECKPOINT|$TENURE_PREVIOUS_END|$TENURE_CHECKPOINT_TOKEN|$TENURE_PREVIOUS_TOKEN\";"
                        + " tenure checkpoint --lock \"$TENURE_LOCK\" --token \"$TENURE_TOKEN\" 'row 42' >/dev/null");
        assertThat(second.waitFor(Duration.ofSeconds(60))).isEqualTo(0);
        String[] seen = second.nextLine(Duration.ofSeconds(1)).split("\\|", -1);
        assertThat(seen[0]).isEqualTo("row 41");
        assertThat(seen[1]).isEqualTo("DISCONNECTED");
        assertThat(seen[2]).isEqualTo(seen[3]); // written by the previous holder

        var third = tenure("run", "ck-lock", "--", "sh", "-c", "echo \"$TENURE_CHECKPOINT\"");
        assertThat(third.waitFor(Duration.ofSeconds(60))).isEqualTo(0);
        assertThat(third.nextLine(Duration.ofSeconds(1))).isEqualTo("row 42");
    }

    @Test
    void maxHoldRevokesTheHolderAndItsFencedWritesAreRejectedAndCounted() throws Exception {
        var holder = tenure("acquire", "mh-lock", "--max-hold", "2s", "--json");
        JsonObject grant = json(holder.nextLine(Duration.ofSeconds(30)));
        long token = grant.get("token").getAsLong();
        assertThat(grant.get("max_hold_ms").getAsLong()).isEqualTo(2_000);
        assertThat(holder.waitFor(Duration.ofSeconds(30))).isEqualTo(4);
        assertThat(holder.output()).contains("lost");

        var put = tenure("kv", "put", "mh-key", "late", "--lock", "mh-lock", "--token", Long.toString(token));
        assertThat(put.waitFor(Duration.ofSeconds(30))).isEqualTo(3);

        JsonObject view = status("mh-lock");
        var history = view.getAsJsonArray("history");
        assertThat(history.get(history.size() - 1).getAsJsonObject().get("end").getAsString())
                .isIn("REVOKED", "EXPIRED"); // the client gives up at its own horizon, just before
        JsonObject stale = view.getAsJsonObject("stale_writes");
        assertThat(stale.get("count").getAsLong()).isEqualTo(1);
        assertThat(stale.get("last_token").getAsLong()).isEqualTo(token);
        assertThat(stale.get("last_target").getAsString()).isEqualTo("kv:mh-key");

        var text = tenure("status", "mh-lock");
        assertThat(text.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        assertThat(text.output()).contains("stale writes rejected: 1 (last: token " + token);
        var node = tenure("status", "--json");
        assertThat(node.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        assertThat(json(node.nextLine(Duration.ofSeconds(1)))
                        .get("stale_writes_rejected")
                        .getAsLong())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void lockDelayHoldsTheLockAfterAKillButNotAfterACleanRelease() throws Exception {
        var clean = tenure("acquire", "ld-lock", "--lock-delay", "30s", "--json");
        clean.nextLine(Duration.ofSeconds(30));
        clean.signal("TERM");
        assertThat(clean.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        var next = tenure("run", "ld-lock", "--no-wait", "--", "true");
        assertThat(next.waitFor(Duration.ofSeconds(60)))
                .as("no delay after a release")
                .isEqualTo(0);

        // 10 s: the refused acquire and the status read below each start a JVM, which on a loaded
        // machine took long enough to outlast a 4 s delay.
        var killed = tenure("acquire", "ld-lock", "--lock-delay", "10s", "--ttl", "30s", "--json");
        long token = json(killed.nextLine(Duration.ofSeconds(30))).get("token").getAsLong();
        long killedAt = System.nanoTime();
        killed.kill9();
        // The lease ends DISCONNECTED once the node's disconnect grace has passed; until then the
        // lock is simply held. The lock delay starts at that end.
        Await.atMost(Duration.ofSeconds(30))
                .until(
                        "the killed holder's lease ended and its lock delay started",
                        () -> status("ld-lock"),
                        s -> s.get("holder").isJsonNull()
                                && s.get("delay_until_ms").getAsLong() > 0);
        List<String> held = new ArrayList<>();
        var noWait = tenure("acquire", "ld-lock", "--no-wait");
        assertThat(noWait.waitFor(Duration.ofSeconds(30))).isEqualTo(3);
        held.add(noWait.output());
        assertThat(held.get(0)).contains("lock delay");
        assertThat(status("ld-lock").get("delay_until_ms").getAsLong()).isPositive();

        var waiter = tenure("acquire", "ld-lock", "--json");
        JsonObject grant = json(waiter.nextLine(Duration.ofSeconds(30)));
        long waitedMs = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(grant.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
        assertThat(grant.get("previous_token").getAsLong()).isEqualTo(token);
        assertThat(waitedMs).as("granted only after the 10 s lock delay").isGreaterThanOrEqualTo(9_500);
        waiter.signal("TERM");
        assertThat(waiter.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
    }

    /**
     * A MANUAL lease that its work loop stops renewing ends after its own lease TTL while the
     * session (kept alive by the client library) lives on: a stuck loop loses the lock, the
     * process does not.
     */
    @Test
    void aManualLeaseNotRenewedExpiresWhileItsSessionLives() throws Exception {
        try (TenureClient client = TenureClient.builder()
                        .endpoints(server.endpoint())
                        .sessionTtl(Duration.ofSeconds(20))
                        .build();
                Session stuck = client.openSession();
                Session next = client.openSession()) {
            Lease lease = stuck.acquire(
                    "manual-lock",
                    AcquireOptions.builder()
                            .renew(AcquireOptions.Renew.MANUAL)
                            .leaseTtl(Duration.ofSeconds(4))
                            .build());
            long started = System.nanoTime();
            // Nobody calls lease.renew(): the next acquirer gets the lock once the lease TTL ran out.
            Lease successor = next.acquire("manual-lock", Duration.ofSeconds(30));
            long waitedMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(successor.previousToken()).isEqualTo(lease.token());
            assertThat(successor.previousEnd()).contains(LossReason.EXPIRED);
            assertThat(waitedMs)
                    .as("ended after about the lease TTL, long before the session TTL")
                    .isBetween(3_000L, 15_000L);
            assertThat(lease.lost()).isDone();
            assertThat(stuck.state()).as("the session outlives its stuck lease").isEqualTo(Session.State.CONNECTED);
            assertThat(stuck.tryAcquire("manual-other"))
                    .as("and still acquires")
                    .isPresent();
        }
    }
}
