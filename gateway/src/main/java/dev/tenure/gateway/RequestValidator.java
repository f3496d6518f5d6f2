package dev.tenure.gateway;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.DowngradeRequest;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.Policy;
import dev.tenure.api.v1.ProclaimRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.core.Limits;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;

/**
 * Checks the shape of every request before it reaches the log: sizes, ranges, required fields.
 * Whether the caller owns a lock or its session is alive is decided later, at apply time, on
 * the replicated state. A rejected request never enters the log, so it changes nothing.
 */
final class RequestValidator {

    private final Limits limits;

    RequestValidator(Limits limits) {
        this.limits = limits;
    }

    void open(AttachRequest.Open open) {
        range("ttl_ms", open.getTtlMs(), limits.sessionTtlMsMin(), limits.sessionTtlMsMax(), "sessionTtlMs");
        bytes("client_name", open.getClientName(), 0, limits.clientNameBytesMax(), "clientNameBytesMax");
        if (open.getDisconnectGraceMs() < 0 || open.getDisconnectGraceMs() > open.getTtlMs()) {
            throw invalid("disconnect_grace_ms must be between 0 and ttl_ms (" + open.getTtlMs() + "), was "
                    + open.getDisconnectGraceMs());
        }
    }

    void resume(AttachRequest.Resume resume) {
        positive("session_id", resume.getSessionId());
        range("disconnect_grace_ms", resume.getDisconnectGraceMs(), 0, limits.sessionTtlMsMax(), "sessionTtlMsMax");
    }

    void acquire(AcquireRequest r) {
        session(r.getSessionId());
        requestId(r.getRequestId());
        lock("lock", r.getLock());
        if (r.hasPolicy()) {
            policy(r.getPolicy());
        }
        if (r.getAttempt() < 0) {
            throw invalid("attempt must not be negative, was " + r.getAttempt());
        }
        // permits 0 is the field's default, read as 1. The core checks the same again at apply.
        int permits = Math.max(1, r.getPermits());
        if (r.getPermits() < 0 || permits > limits.permitsMax()) {
            throw invalid("permits " + r.getPermits() + " is outside [1, permitsMax " + limits.permitsMax() + "]");
        }
        if (r.getShared() && permits != 1) {
            throw invalid("a shared lease takes no permits (was " + permits + "): any number may share a lock");
        }
        Policy p = r.getPolicy();
        boolean policy = p.getLockDelayMs() != 0 || p.getMaxHoldMs() != 0 || p.getLeaseTtlMs() != 0;
        if ((r.getShared() || permits > 1) && policy) {
            throw invalid("lockDelay, maxHold and manual renewal are not supported for "
                    + (r.getShared() ? "a shared lease" : "a semaphore (permits " + permits + ")"));
        }
        electionValue(r.getValue().size());
        if (!r.getValue().isEmpty() && (r.getShared() || permits != 1)) {
            throw invalid("an election is exclusive: a value goes with an exclusive acquire of a plain lock"
                    + " (permits 1), not " + (r.getShared() ? "a shared one" : "permits " + permits));
        }
    }

    void proclaim(ProclaimRequest r) {
        session(r.getSessionId());
        requestId(r.getRequestId());
        lock("lock", r.getLock());
        positive("token", r.getToken());
        electionValue(r.getValue().size());
    }

    private void electionValue(int size) {
        if (size > limits.electionValueBytesMax()) {
            throw invalid(
                    "election value is " + size + " bytes; electionValueBytesMax is " + limits.electionValueBytesMax());
        }
    }

    void downgrade(DowngradeRequest r) {
        session(r.getSessionId());
        requestId(r.getRequestId());
        lock("lock", r.getLock());
        positive("token", r.getToken());
    }

    /** Each field 0 (off) or within its limit; the lease TTL shares the session TTL range. */
    private void policy(Policy p) {
        range("policy.lock_delay_ms", p.getLockDelayMs(), 0, limits.lockDelayMsMax(), "lockDelayMsMax");
        if (p.getMaxHoldMs() != 0) {
            range("policy.max_hold_ms", p.getMaxHoldMs(), limits.sessionTtlMsMin(), limits.maxHoldMsMax(), "maxHoldMs");
        }
        if (p.getLeaseTtlMs() != 0) {
            range(
                    "policy.lease_ttl_ms",
                    p.getLeaseTtlMs(),
                    limits.sessionTtlMsMin(),
                    limits.sessionTtlMsMax(),
                    "sessionTtlMs");
        }
    }

    void renewLease(RenewLeaseRequest r) {
        session(r.getSessionId());
        requestId(r.getRequestId());
        lock("lock", r.getLock());
        positive("token", r.getToken());
        if (r.getMaxHoldMs() != 0) {
            range("max_hold_ms", r.getMaxHoldMs(), limits.sessionTtlMsMin(), limits.maxHoldMsMax(), "maxHoldMs");
        }
    }

    void checkpoint(WriteCheckpointRequest r) {
        optionalSession(r.getSessionId(), r.getRequestId());
        lock("lock", r.getLock());
        positive("token", r.getToken());
        if (r.getValue().size() > limits.checkpointBytesMax()) {
            throw invalid("checkpoint is " + r.getValue().size() + " bytes; checkpointBytesMax is "
                    + limits.checkpointBytesMax());
        }
    }

    void release(ReleaseRequest r) {
        session(r.getSessionId());
        requestId(r.getRequestId());
        lock("lock", r.getLock());
        positive("token", r.getToken());
    }

    void status(LockStatusRequest r) {
        lock("lock", r.getLock());
    }

    /**
     * A name, or a prefix (empty: every name), not both. A watched name is a lock's and a key's,
     * so it is bounded by the larger of the two limits.
     */
    void watch(dev.tenure.api.v1.WatchRequest r) {
        int max = Math.max(limits.lockNameBytesMax(), limits.keyBytesMax());
        String limit = limits.lockNameBytesMax() >= limits.keyBytesMax() ? "lockNameBytesMax" : "keyBytesMax";
        if (!r.getName().isEmpty() && !r.getPrefix().isEmpty()) {
            throw invalid("give a name or a prefix to watch, not both");
        }
        bytes("name", r.getName(), 0, max, limit);
        bytes("prefix", r.getPrefix(), 0, max, limit);
        if (r.hasFromRevision() && r.getFromRevision() < 0) {
            throw invalid("from_revision must not be negative, was " + r.getFromRevision());
        }
    }

    void listLocks(ListLocksRequest r, ListPaging paging) {
        bytes("prefix", r.getPrefix(), 0, limits.lockNameBytesMax(), "lockNameBytesMax");
        bytes("after", r.getAfter(), 0, limits.lockNameBytesMax(), "lockNameBytesMax");
        if (r.getLimit() != 0) {
            range("limit", r.getLimit(), 1, paging.listPageMax(), "listPageMax");
        }
    }

    void put(KvPutRequest r) {
        optionalSession(r.getSessionId(), r.getRequestId());
        bytes("key", r.getKey(), 1, limits.keyBytesMax(), "keyBytesMax");
        if (r.getValue().size() > limits.valueBytesMax()) {
            throw invalid("value is " + r.getValue().size() + " bytes; valueBytesMax is " + limits.valueBytesMax());
        }
        if (r.hasFence()) {
            fence(r.getFence());
        }
        if (r.hasIfVersion()) {
            ifVersion(r.getIfVersion());
        }
        if (r.getEphemeral() && r.getSessionId() == 0) {
            throw invalid("ephemeral needs session_id: the key lives while its session does");
        }
    }

    void get(KvGetRequest r) {
        bytes("key", r.getKey(), 1, limits.keyBytesMax(), "keyBytesMax");
    }

    void delete(KvDeleteRequest r) {
        optionalSession(r.getSessionId(), r.getRequestId());
        bytes("key", r.getKey(), 1, limits.keyBytesMax(), "keyBytesMax");
        if (r.hasFence()) {
            fence(r.getFence());
        }
        if (r.hasIfVersion()) {
            ifVersion(r.getIfVersion());
        }
    }

    private void ifVersion(long version) {
        if (version < 0) {
            throw invalid("if_version is " + version + "; it must be 0 (the key must not exist) or more");
        }
    }

    private void fence(Fence fence) {
        lock("fence.lock", fence.getLock());
        positive("fence.token", fence.getToken());
    }

    private void lock(String field, String name) {
        bytes(field, name, 1, limits.lockNameBytesMax(), "lockNameBytesMax");
    }

    private static void session(long sessionId) {
        positive("session_id", sessionId);
    }

    private static void requestId(long requestId) {
        positive("request_id", requestId);
    }

    private static void optionalSession(long sessionId, long requestId) {
        if (sessionId < 0 || requestId < 0 || (sessionId > 0 && requestId == 0)) {
            throw invalid("session_id and request_id must both be positive, or session_id 0 for no session");
        }
    }

    private static void positive(String field, long value) {
        if (value <= 0) {
            throw invalid(field + " must be positive, was " + value);
        }
    }

    private static void range(String field, long value, long min, long max, String limitName) {
        if (value < min || value > max) {
            throw invalid(field + " is " + value + "; " + limitName + " allows " + min + ".." + max);
        }
    }

    private static void bytes(String field, String value, int min, int max, String limitName) {
        int length = value.getBytes(StandardCharsets.UTF_8).length;
        if (length < min) {
            throw invalid(field + " must not be empty");
        }
        if (length > max) {
            throw invalid(field + " is " + length + " bytes; " + limitName + " is " + max);
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw invalid(field + " must not contain control characters");
            }
        }
    }

    static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
