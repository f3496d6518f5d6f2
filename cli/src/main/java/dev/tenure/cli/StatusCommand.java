package dev.tenure.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.client.LockStatus;
import dev.tenure.client.ServerStatus;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "status",
        description =
                "For LOCK: its holder, waiters and recent ownership history. Without LOCK: the server or cluster.")
final class StatusCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "LOCK")
    String lock;

    @Mixin
    ClientOptions client;

    @Option(names = "--json", description = "One JSON object on one line.")
    boolean json;

    @Override
    public Integer call() {
        try (TenureClient tenure = client.client()) {
            if (lock != null) {
                LockStatus status = tenure.status(lock);
                System.out.println(json ? Json.line(lockJson(status)) : lockText(status));
            } else {
                ServerStatus status = tenure.serverStatus();
                System.out.println(json ? Json.line(serverJson(status)) : serverText(status));
                if (!"ok".equals(status.health())) {
                    return ExitCodes.UNAVAILABLE;
                }
            }
            return ExitCodes.OK;
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    private static JsonObject lockJson(LockStatus s) {
        JsonObject o = new JsonObject();
        o.addProperty("lock", s.lock());
        s.holder()
                .ifPresentOrElse(
                        h -> {
                            JsonObject holder = new JsonObject();
                            holder.addProperty("session", h.sessionId());
                            holder.addProperty("token", h.token());
                            holder.addProperty("since_ms", h.sinceMs());
                            holder.addProperty("client", h.clientName());
                            o.add("holder", holder);
                        },
                        () -> o.add("holder", null));
        JsonArray waiters = new JsonArray();
        for (var w : s.waiters()) {
            JsonObject waiter = new JsonObject();
            waiter.addProperty("session", w.sessionId());
            waiter.addProperty("since_ms", w.sinceMs());
            waiter.addProperty("client", w.clientName());
            waiters.add(waiter);
        }
        o.add("waiters", waiters);
        JsonArray history = new JsonArray();
        for (var h : s.history()) {
            JsonObject t = new JsonObject();
            t.addProperty("session", h.sessionId());
            t.addProperty("token", h.token());
            t.addProperty("granted_at_ms", h.grantedAtMs());
            t.addProperty("ended_at_ms", h.endedAtMs());
            t.addProperty("end", h.end().name());
            history.add(t);
        }
        o.add("history", history);
        o.addProperty("now_ms", s.nowMs());
        return o;
    }

    private static String lockText(LockStatus s) {
        StringBuilder b = new StringBuilder("lock ").append(s.lock()).append('\n');
        s.holder()
                .ifPresentOrElse(
                        h -> b.append(String.format(
                                "  holder   session %d token %d since %s (%s)%n",
                                h.sessionId(), h.token(), Instant.ofEpochMilli(h.sinceMs()), h.clientName())),
                        () -> b.append("  holder   none\n"));
        b.append("  waiters  ").append(s.waiters().size()).append('\n');
        for (var w : s.waiters()) {
            b.append(String.format(
                    "    session %d since %s (%s)%n",
                    w.sessionId(), Instant.ofEpochMilli(w.sinceMs()), w.clientName()));
        }
        b.append("  history  (oldest first)\n");
        for (var h : s.history()) {
            b.append(String.format(
                    "    token %d session %d %s .. %s %s%n",
                    h.token(),
                    h.sessionId(),
                    Instant.ofEpochMilli(h.grantedAtMs()),
                    Instant.ofEpochMilli(h.endedAtMs()),
                    h.end()));
        }
        return b.toString().stripTrailing();
    }

    private static JsonObject serverJson(ServerStatus s) {
        JsonObject o = new JsonObject();
        o.addProperty("node_id", s.nodeId());
        o.addProperty("leader_id", s.leaderId());
        o.addProperty("health", s.health());
        o.addProperty("health_detail", s.healthDetail());
        o.addProperty("health_since_ms", s.healthSinceMs());
        JsonArray members = new JsonArray();
        for (var m : s.members()) {
            JsonObject member = new JsonObject();
            member.addProperty("id", m.id());
            member.addProperty("endpoint", m.endpoint());
            member.addProperty("leader", m.leader());
            members.add(member);
        }
        o.add("members", members);
        o.addProperty("sessions", s.sessions());
        o.addProperty("locks", s.locks());
        o.addProperty("held", s.held());
        o.addProperty("last_token", s.lastToken());
        o.addProperty("replica_last_token", s.replicaLastToken());
        o.addProperty("replica_log_position", s.replicaLogPosition());
        o.addProperty("snapshots", s.snapshots());
        o.addProperty("snapshot_position", s.snapshotPosition());
        o.addProperty("log_start_position", s.logStartPosition());
        return o;
    }

    private static String serverText(ServerStatus s) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                "health   %s%s (since %s)%n",
                s.health(),
                s.healthDetail().isEmpty() ? "" : ": " + s.healthDetail(),
                Instant.ofEpochMilli(s.healthSinceMs())));
        b.append(String.format("node     %d, leader %s%n", s.nodeId(), s.leaderId() < 0 ? "unknown" : s.leaderId()));
        for (var m : s.members()) {
            b.append(String.format("member   %d %s%s%n", m.id(), m.endpoint(), m.leader() ? " (leader)" : ""));
        }
        b.append(String.format(
                "sessions %d, locks %d (%d held), last token %d%n", s.sessions(), s.locks(), s.held(), s.lastToken()));
        b.append(String.format(
                "log      applied to %d, retained from %d, latest snapshot at %d (%d taken since start)",
                s.replicaLogPosition(), s.logStartPosition(), s.snapshotPosition(), s.snapshots()));
        return b.toString();
    }
}
