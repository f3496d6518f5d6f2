package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Semaphores and shared leases on a real node through the CLI: N holders of `--permits N`, the
 * next one admitted when one is killed with -9 (through the session-end path, not a TTL); shared
 * and exclusive holders in FIFO order; a permits mismatch is bad input.
 */
class SemaphoreIT extends OnOneNode {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @BeforeAll
    static void start() throws Exception {
        // permitsMax and the listing's page size lowered, to see the node's own bounds refuse.
        serve(new ServerProcess(data)
                .withOptions("--limit", "permitsMax=4", "--list-page-max", "50", "--list-page-default", "50"));
    }

    @Test
    void nPlusOneHoldersWithPermitsNTheKilledOnesPermitGoesToTheNext() throws Exception {
        try (var a = tenure("acquire", "sem", "--permits", "2", "--ttl", "30s", "--json");
                var b = tenure("acquire", "sem", "--permits", "2", "--ttl", "30s", "--json")) {
            long ta = json(a.nextLine(PATIENCE)).get("token").getAsLong();
            long tb = json(b.nextLine(PATIENCE)).get("token").getAsLong();
            assertThat(tb).isNotEqualTo(ta);
            try (var c = tenure("acquire", "sem", "--permits", "2", "--json")) {
                cli.awaitQueued("sem", c);
                JsonObject view = status("sem");
                assertThat(view.get("permits").getAsInt()).isEqualTo(2);
                assertThat(view.getAsJsonArray("holders")).hasSize(2);
                // The listing shows both holders, oldest first; its holder fields the oldest.
                try (var listing = tenure("locks", "--prefix", "sem", "--json")) {
                    assertThat(listing.waitFor(PATIENCE)).as(listing.output()).isZero();
                    JsonObject listed = json(listing.stdout.poll());
                    // a and b start together: either may be granted first.
                    long older = Math.min(ta, tb);
                    long newer = Math.max(ta, tb);
                    assertThat(listed.get("token").getAsLong()).isEqualTo(older);
                    assertThat(listed.get("waiters").getAsInt()).isEqualTo(1);
                    var holders = listed.getAsJsonArray("holders");
                    assertThat(holders).hasSize(2);
                    assertThat(holders.get(0).getAsJsonObject().get("token").getAsLong())
                            .isEqualTo(older);
                    assertThat(holders.get(1).getAsJsonObject().get("token").getAsLong())
                            .isEqualTo(newer);
                    assertThat(holders.get(1).getAsJsonObject().get("shared").getAsBoolean())
                            .isFalse();
                }

                var mismatch = tenure("acquire", "sem", "--permits", "3", "--wait", "0s");
                assertThat(mismatch.waitFor(PATIENCE)).as(mismatch.output()).isEqualTo(2);
                assertThat(mismatch.output()).contains("permits 2").contains("not 3");

                long killedAt = System.nanoTime();
                a.kill9();
                JsonObject granted = json(c.nextLine(PATIENCE));
                long ms = (System.nanoTime() - killedAt) / 1_000_000;
                assertThat(granted.get("token").getAsLong()).isGreaterThan(Math.max(ta, tb));
                assertThat(granted.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
                assertThat(ms)
                        .as("the permit passes on without waiting for the 30 s TTL")
                        .isLessThan(10_000);

                // The killed holder's token no longer fences; the live ones' do.
                var stale = tenure("kv", "put", "sem-key", "v", "--lock", "sem", "--token", Long.toString(ta));
                assertThat(stale.waitFor(PATIENCE)).isEqualTo(3);
                var fresh = tenure("kv", "put", "sem-key", "v", "--lock", "sem", "--token", Long.toString(tb));
                assertThat(fresh.waitFor(PATIENCE)).as(fresh.output()).isEqualTo(0);
                assertThat(status("sem").getAsJsonArray("holders")).hasSize(2);
                c.signal("TERM");
                assertThat(c.waitFor(PATIENCE)).isEqualTo(0);
            }
            b.signal("TERM");
            assertThat(b.waitFor(PATIENCE)).isEqualTo(0);
        }
    }

    @Test
    void sharedAndExclusiveHoldersInterleaveInFifoOrder() throws Exception {
        try (var r1 = tenure("acquire", "rw", "--shared", "--json");
                var r2 = tenure("acquire", "rw", "--shared", "--json")) {
            long t1 = json(r1.nextLine(PATIENCE)).get("token").getAsLong();
            long t2 = json(r2.nextLine(PATIENCE)).get("token").getAsLong();
            try (var w = tenure("acquire", "rw", "--json")) {
                cli.awaitQueued("rw", w);
                try (var r3 = tenure("acquire", "rw", "--shared", "--json")) {
                    cli.awaitQueued("rw", r3); // behind the exclusive waiter, though the lock is held shared
                    var waiters = status("rw").getAsJsonArray("waiters");
                    assertThat(waiters).hasSize(2);
                    assertThat(waiters.get(0).getAsJsonObject().get("shared").getAsBoolean())
                            .isFalse();
                    assertThat(waiters.get(1).getAsJsonObject().get("shared").getAsBoolean())
                            .isTrue();
                    try (var listing = tenure("locks", "--prefix", "rw", "--json")) {
                        assertThat(listing.waitFor(PATIENCE))
                                .as(listing.output())
                                .isZero();
                        var holders = json(listing.stdout.poll()).getAsJsonArray("holders");
                        assertThat(holders).hasSize(2);
                        assertThat(holders.get(0)
                                        .getAsJsonObject()
                                        .get("shared")
                                        .getAsBoolean())
                                .isTrue();
                        // Oldest first; the two shared acquirers start at once, so either may be first.
                        assertThat(holders.get(0).getAsJsonObject().get("token").getAsLong())
                                .isEqualTo(Math.min(t1, t2));
                        assertThat(holders.get(1).getAsJsonObject().get("token").getAsLong())
                                .isEqualTo(Math.max(t1, t2));
                    }
                    r1.signal("TERM");
                    assertThat(r1.waitFor(PATIENCE)).as(r1.output()).isEqualTo(0);
                    r2.signal("TERM");
                    assertThat(r2.waitFor(PATIENCE)).as(r2.output()).isEqualTo(0);
                    long tw = json(w.nextLine(PATIENCE)).get("token").getAsLong();
                    assertThat(tw).isGreaterThan(Math.max(t1, t2));
                    assertThat(r3.stdout.poll())
                            .as("the shared waiter waits for the exclusive holder")
                            .isNull();
                    w.signal("TERM");
                    assertThat(w.waitFor(PATIENCE)).isEqualTo(0);
                    long t3 = json(r3.nextLine(PATIENCE)).get("token").getAsLong();
                    assertThat(t3).isGreaterThan(tw);
                    JsonObject view = status("rw");
                    assertThat(view.getAsJsonArray("holders")).hasSize(1);
                    assertThat(view.getAsJsonArray("holders")
                                    .get(0)
                                    .getAsJsonObject()
                                    .get("shared")
                                    .getAsBoolean())
                            .isTrue();
                    r3.signal("TERM");
                    assertThat(r3.waitFor(PATIENCE)).isEqualTo(0);
                }
            }
        }
    }

    @Test
    void badPermitsAreRefusedBeforeAnythingChanges() throws Exception {
        var zero = tenure("acquire", "bad-sem", "--permits", "0");
        assertThat(zero.waitFor(PATIENCE)).isEqualTo(2);
        var sharedPermits = tenure("acquire", "bad-sem", "--permits", "2", "--shared");
        assertThat(sharedPermits.waitFor(PATIENCE)).isEqualTo(2);
        var tooMany = tenure("acquire", "bad-sem", "--permits", "5", "--wait", "0s");
        assertThat(tooMany.waitFor(PATIENCE)).as(tooMany.output()).isEqualTo(2);
        assertThat(tooMany.output()).contains("permitsMax 4");
        var bigPage = tenure("locks", "--page-size", "51");
        assertThat(bigPage.waitFor(PATIENCE)).as(bigPage.output()).isEqualTo(2);
        assertThat(bigPage.output()).contains("listPageMax");
        assertThat(status("bad-sem").getAsJsonArray("holders")).isEmpty();
    }
}
