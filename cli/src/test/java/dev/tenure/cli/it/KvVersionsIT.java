package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.testkit.Await;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Compare-and-set and ephemeral keys through `tenure kv` against a real node: a version mismatch
 * exits 3 naming the current version and changes nothing; an ephemeral key lives while its `kv put
 * --ephemeral` process does, and is gone at once after SIGTERM, and after `kill -9` once the
 * disconnect grace has passed.
 */
class KvVersionsIT extends OnOneNode {

    /** Runs `tenure ARGS` to its end; returns its exit code, its output in {@code out[0]}. */
    private static int exit(String[] out, String... args) throws Exception {
        try (var p = tenure(args)) {
            int code = p.waitFor(Duration.ofSeconds(60));
            out[0] = p.output();
            return code;
        }
    }

    /** `kv get KEY --json`, or null when the key is absent (exit 3). */
    private static JsonObject get(String key) throws Exception {
        try (var p = tenure("kv", "get", key, "--json")) {
            int code = p.waitFor(Duration.ofSeconds(60));
            if (code == 3) {
                return null;
            }
            assertThat(code).as(p.output()).isZero();
            return json(p.nextLine(Duration.ofSeconds(1)));
        }
    }

    @Test
    void compareAndSetCreatesUpdatesAndRefusesAMismatchWithExit3() throws Exception {
        String[] out = new String[1];
        assertThat(exit(out, "kv", "put", "cas", "a", "--if-version", "0"))
                .as(out[0])
                .isZero();
        assertThat(out[0]).isEqualTo("out: ok (version 1)");
        assertThat(exit(out, "kv", "put", "cas", "b", "--if-version", "0"))
                .as(out[0])
                .isEqualTo(3);
        assertThat(out[0]).isEqualTo("err: tenure: version mismatch: the current version is 1; nothing changed");
        assertThat(exit(out, "kv", "put", "cas", "b", "--if-version", "1"))
                .as(out[0])
                .isZero();
        assertThat(out[0]).isEqualTo("out: ok (version 2)");
        assertThat(exit(out, "kv", "put", "cas", "c")).as(out[0]).isZero();
        assertThat(out[0]).isEqualTo("out: ok (version 3)");
        assertThat(exit(out, "kv", "put", "cas", "d", "--if-version", "2"))
                .as(out[0])
                .isEqualTo(3);
        assertThat(out[0]).isEqualTo("err: tenure: version mismatch: the current version is 3; nothing changed");
        JsonObject v = get("cas");
        assertThat(v.get("value").getAsString()).isEqualTo("c");
        assertThat(v.get("version").getAsLong()).isEqualTo(3);
        assertThat(exit(out, "kv", "del", "cas", "--if-version", "2"))
                .as(out[0])
                .isEqualTo(3);
        assertThat(exit(out, "kv", "del", "cas", "--if-version", "3"))
                .as(out[0])
                .isZero();
        assertThat(exit(out, "kv", "del", "cas", "--if-version", "3"))
                .as(out[0])
                .isEqualTo(3);
        assertThat(out[0]).isEqualTo("err: tenure: version mismatch: the current version is 0; nothing changed");
        assertThat(exit(out, "kv", "put", "cas", "e", "--if-version", "-1"))
                .as(out[0])
                .isEqualTo(2);
    }

    @Test
    void anEphemeralKeyLivesWhileItsCommandRunsAndGoesAtOnceOnSigterm() throws Exception {
        try (var holder = tenure("kv", "put", "member/a", "up", "--ephemeral", "--json")) {
            JsonObject written = json(holder.nextLine(Duration.ofSeconds(60)));
            assertThat(written.get("key").getAsString()).isEqualTo("member/a");
            assertThat(written.get("version").getAsLong()).isEqualTo(1);
            long session = written.get("session").getAsLong();
            JsonObject seen = get("member/a");
            assertThat(seen.get("ephemeral").getAsBoolean()).isTrue();
            assertThat(seen.get("ephemeral_session_id").getAsLong()).isEqualTo(session);
            String[] out = new String[1];
            assertThat(exit(out, "kv", "put", "member/a", "taken")).as(out[0]).isEqualTo(3);
            assertThat(out[0]).startsWith("err: tenure: ephemeral conflict: ");
            holder.signal("TERM");
            assertThat(holder.waitFor(Duration.ofSeconds(30)))
                    .as(holder.output())
                    .isZero();
            // closed, not expired: the close that the exit waited for deleted the key
            assertThat(get("member/a")).isNull();
        }
    }

    @Test
    void aKilledHoldersEphemeralKeyGoesOnceTheDisconnectGraceHasPassed() throws Exception {
        try (var holder = tenure(
                "kv", "put", "member/b", "up", "--ephemeral", "--json", "--ttl", "120s", "--disconnect-grace", "20s")) {
            json(holder.nextLine(Duration.ofSeconds(60)));
            holder.kill9();
            long killedAt = System.nanoTime();
            assertThat(get("member/b"))
                    .as("within the grace the session, and its key, live")
                    .isNotNull();
            Await.atMost(Duration.ofSeconds(90))
                    .every(Duration.ofMillis(250))
                    .until("member/b deleted", () -> get("member/b") == null);
            // after the grace (20 s; each read is a JVM start, so seen a little later) and well before the TTL (120 s)
            assertThat(Duration.ofNanos(System.nanoTime() - killedAt))
                    .isBetween(Duration.ofSeconds(19), Duration.ofSeconds(100));
        }
    }
}
