package dev.tenure.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.client.LockStatus;
import dev.tenure.client.ServerStatus;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
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
    @Nullable
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
        s.holder().ifPresentOrElse(h -> o.add("holder", holderJson(h)), () -> o.add("holder", null));
        JsonArray holders = new JsonArray();
        for (var h : s.holders()) {
            holders.add(holderJson(h));
        }
        o.add("holders", holders);
        o.addProperty("permits", s.permits());
        JsonArray waiters = new JsonArray();
        for (var w : s.waiters()) {
            JsonObject waiter = new JsonObject();
            waiter.addProperty("session", w.sessionId());
            waiter.addProperty("since_ms", w.since().toEpochMilli());
            waiter.addProperty("client", w.clientName());
            waiter.addProperty("principal", w.principal());
            waiter.addProperty("shared", w.shared());
            waiters.add(waiter);
        }
        o.add("waiters", waiters);
        JsonArray history = new JsonArray();
        for (var h : s.history()) {
            JsonObject t = new JsonObject();
            t.addProperty("session", h.sessionId());
            t.addProperty("token", h.token());
            t.addProperty("granted_at_ms", h.grantedAt().toEpochMilli());
            t.addProperty("ended_at_ms", h.endedAt().toEpochMilli());
            t.addProperty("end", h.end().name());
            t.addProperty("principal", h.principal());
            if (h.forced()) {
                JsonObject by = new JsonObject();
                by.addProperty("session", h.forcedBySessionId());
                by.addProperty("client", h.forcedByClient());
                by.addProperty("principal", h.forcedByPrincipal());
                t.add("forced_by", by);
            } else {
                t.add("forced_by", null);
            }
            history.add(t);
        }
        o.add("history", history);
        o.addProperty("now_ms", s.now().toEpochMilli());
        o.addProperty("delay_until_ms", ms(s.delayUntil()));
        s.checkpoint()
                .ifPresentOrElse(
                        c -> {
                            JsonObject cp = new JsonObject();
                            cp.addProperty("bytes", c.value().length);
                            cp.addProperty("token", c.token());
                            cp.addProperty("written_at_ms", c.writtenAt().toEpochMilli());
                            o.add("checkpoint", cp);
                        },
                        () -> o.add("checkpoint", null));
        JsonObject stale = new JsonObject();
        stale.addProperty("count", s.staleWrites().count());
        stale.addProperty("last_token", s.staleWrites().lastToken());
        stale.addProperty("last_current_token", s.staleWrites().lastCurrentToken());
        stale.addProperty("last_target", s.staleWrites().lastTarget());
        stale.addProperty("last_at_ms", ms(s.staleWrites().lastAt()));
        o.add("stale_writes", stale);
        return o;
    }

    static JsonObject holderJson(LockStatus.Holder h) {
        JsonObject holder = new JsonObject();
        holder.addProperty("session", h.sessionId());
        holder.addProperty("token", h.token());
        holder.addProperty("since_ms", h.since().toEpochMilli());
        holder.addProperty("client", h.clientName());
        holder.addProperty("principal", h.principal());
        holder.addProperty("renew", h.leaseTtl().toMillis() > 0 ? "MANUAL" : "AUTO");
        holder.addProperty("lease_ttl_ms", h.leaseTtl().toMillis());
        holder.addProperty("max_hold_ms", h.maxHold().toMillis());
        holder.addProperty("lock_delay_ms", h.lockDelay().toMillis());
        holder.addProperty("ends_at_ms", ms(h.endsAt()));
        holder.addProperty("shared", h.shared());
        return holder;
    }

    private static String lockText(LockStatus s) {
        StringBuilder b = new StringBuilder("lock ").append(s.lock()).append('\n');
        if (s.holders().isEmpty()) {
            b.append("  holder   none\n");
        }
        if (s.permits() > 1) {
            b.append(String.format(
                    "  permits  %d (%d held)%n", s.permits(), s.holders().size()));
        }
        // Every current lease: a semaphore's and shared holders are listed one per line.
        for (var h : s.holders()) {
            b.append(String.format(
                    "  holder   session %d token %d since %s (%s)%s%n  policy   %s%n",
                    h.sessionId(),
                    h.token(),
                    h.since(),
                    who(h.clientName(), h.principal()),
                    h.shared() ? " shared" : "",
                    policyText(h)));
        }
        if (s.delayUntil().isPresent()) {
            b.append(String.format(
                    "  delay    lock delay pending until %s%n", s.delayUntil().orElseThrow()));
        }
        b.append("  waiters  ").append(s.waiters().size()).append('\n');
        for (var w : s.waiters()) {
            b.append(String.format(
                    "    session %d since %s (%s)%s%n",
                    w.sessionId(), w.since(), who(w.clientName(), w.principal()), w.shared() ? " shared" : ""));
        }
        b.append("  history  (oldest first)\n");
        for (var h : s.history()) {
            b.append(String.format(
                    "    token %d session %d%s %s .. %s %s%s%n",
                    h.token(),
                    h.sessionId(),
                    h.principal().isEmpty() ? "" : " (principal " + h.principal() + ")",
                    h.grantedAt(),
                    h.endedAt(),
                    h.end(),
                    h.forced()
                            ? String.format(
                                    " (forced by session %d, %s)",
                                    h.forcedBySessionId(), who(h.forcedByClient(), h.forcedByPrincipal()))
                            : ""));
        }
        s.checkpoint()
                .ifPresent(c -> b.append(String.format(
                        "  checkpoint %d bytes, token %d at %s%n", c.value().length, c.token(), c.writtenAt())));
        var sw = s.staleWrites();
        b.append(String.format("  stale writes rejected: %d", sw.count()));
        if (sw.count() > 0) {
            b.append(String.format(
                    " (last: token %d < current %d on %s at %s)",
                    sw.lastToken(),
                    sw.lastCurrentToken(),
                    sw.lastTarget(),
                    sw.lastAt().orElse(Instant.EPOCH)));
        }
        return b.toString().stripTrailing();
    }

    /** A client name, and its principal where it has one. */
    private static String who(String clientName, String principal) {
        return principal.isEmpty() ? clientName : clientName + ", principal " + principal;
    }

    private static String policyText(LockStatus.Holder h) {
        return "renew "
                + (h.leaseTtl().toMillis() > 0
                        ? "manual (lease TTL " + h.leaseTtl().toMillis() + "ms)"
                        : "auto")
                + ", maxHold " + (h.maxHold().toMillis() > 0 ? h.maxHold().toMillis() + "ms" : "off")
                + ", lockDelay " + (h.lockDelay().toMillis() > 0 ? h.lockDelay().toMillis() + "ms" : "off")
                + (ms(h.endsAt()) > 0 ? ", ends by " + h.endsAt().orElseThrow() : "");
    }

    private static JsonObject serverJson(ServerStatus s) {
        JsonObject o = new JsonObject();
        o.addProperty("node_id", s.nodeId());
        o.addProperty("leader_id", s.leaderId());
        o.addProperty("health", s.health());
        o.addProperty("health_detail", s.healthDetail());
        o.addProperty("health_since_ms", s.healthSince().toEpochMilli());
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
        o.addProperty("stale_writes_rejected", s.staleWritesRejected());
        o.addProperty("snapshot_position", s.snapshotPosition());
        o.addProperty("log_start_position", s.logStartPosition());
        o.addProperty("revision", s.revision());
        return o;
    }

    private static String serverText(ServerStatus s) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                "health   %s%s (since %s)%n",
                s.health(), s.healthDetail().isEmpty() ? "" : ": " + s.healthDetail(), s.healthSince()));
        b.append(String.format("node     %d, leader %s%n", s.nodeId(), s.leaderId() < 0 ? "unknown" : s.leaderId()));
        for (var m : s.members()) {
            b.append(String.format("member   %d %s%s%n", m.id(), m.endpoint(), m.leader() ? " (leader)" : ""));
        }
        b.append(String.format(
                "sessions %d, locks %d (%d held), last token %d, stale writes rejected %d%n",
                s.sessions(), s.locks(), s.held(), s.lastToken(), s.staleWritesRejected()));
        b.append(String.format(
                "log      applied to %d, retained from %d, latest snapshot at %d (%d taken since start)",
                s.replicaLogPosition(), s.logStartPosition(), s.snapshotPosition(), s.snapshots()));
        b.append(String.format("%nwatch    revision %d", s.revision()));
        return b.toString();
    }

    /** The wire's and the JSON's 0 for none. */
    private static long ms(Optional<Instant> t) {
        return t.map(Instant::toEpochMilli).orElse(0L);
    }
}
