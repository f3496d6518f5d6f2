package dev.tenure.gateway;

import static dev.tenure.api.v1.Code.CODE_CANCELLED_VALUE;
import static dev.tenure.api.v1.Code.CODE_DENIED_VALUE;
import static dev.tenure.api.v1.Code.CODE_EPHEMERAL_CONFLICT_VALUE;
import static dev.tenure.api.v1.Code.CODE_HELD_VALUE;
import static dev.tenure.api.v1.Code.CODE_INVALID_VALUE;
import static dev.tenure.api.v1.Code.CODE_KEY_FENCED_VALUE;
import static dev.tenure.api.v1.Code.CODE_LIMIT_VALUE;
import static dev.tenure.api.v1.Code.CODE_NOT_FOUND_VALUE;
import static dev.tenure.api.v1.Code.CODE_NOT_OWNER_VALUE;
import static dev.tenure.api.v1.Code.CODE_OK_VALUE;
import static dev.tenure.api.v1.Code.CODE_REQUEST_TOO_OLD_VALUE;
import static dev.tenure.api.v1.Code.CODE_SESSION_LOST_VALUE;
import static dev.tenure.api.v1.Code.CODE_STALE_TOKEN_VALUE;
import static dev.tenure.api.v1.Code.CODE_VERSION_MISMATCH_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_DISCONNECTED_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_NONE_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_RELEASED_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_REVOKED_VALUE;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.DowngradeResponse;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ProclaimResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.Waiter;
import dev.tenure.api.v1.WriteCheckpointResponse;
import dev.tenure.core.Checkpoint;
import dev.tenure.core.Code;
import dev.tenure.core.Command;
import dev.tenure.core.ElectionValue;
import dev.tenure.core.Event;
import dev.tenure.core.Grant;
import dev.tenure.core.Policy;
import dev.tenure.core.Result;
import dev.tenure.core.StaleWrites;
import dev.tenure.core.TenureEnd;
import dev.tenure.core.TenureRecord;
import dev.tenure.log.v1.Done;
import dev.tenure.log.v1.Egress;
import dev.tenure.log.v1.KeepAliveBatchResult;
import dev.tenure.log.v1.LeaseEnded;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Queued;
import dev.tenure.log.v1.Reply;
import dev.tenure.log.v1.Resumed;
import dev.tenure.log.v1.SessionEnded;
import dev.tenure.log.v1.Stats;
import dev.tenure.log.v1.WaitResolved;

/**
 * Translates between the log's protobuf messages and the core's command, result and event values:
 * the one mapping, used by the clustered service on every replica and by the simulation's log.
 * Pure functions: every replica must map the same entry to the same command, so they depend on
 * nothing but their arguments.
 */
public final class WireMapping {

    private WireMapping() {}

    /**
     * The command {@code log} carries; wrapped in {@link Command.WithSecret} when it carries the
     * hash of a session secret, so the state machine can check it against the session's.
     */
    public static Command toCommand(LogCommand log) {
        Command command = unwrapped(log);
        return log.getSecretHash().isEmpty()
                ? command
                : new Command.WithSecret(SessionSecrets.toCore(log.getSecretHash()), command);
    }

    private static Command unwrapped(LogCommand log) {
        return switch (log.getCmdCase()) {
            case OPEN_SESSION ->
                new Command.OpenSession(
                        log.getOpenSession().getTtlMs(),
                        log.getOpenSession().getClientName(),
                        SessionSecrets.toCore(log.getOpenSession().getSecretHash()),
                        log.getOpenSession().getPrincipal());
            case KEEP_ALIVE -> new Command.KeepAlive(log.getKeepAlive().getSessionIdsList());
            case CLOSE_SESSION ->
                new Command.CloseSession(
                        log.getCloseSession().getSessionId(),
                        toCore(log.getCloseSession().getEndValue()),
                        log.getCloseSession().getAttachment());
            case ABANDON_OPEN -> new Command.AbandonOpen(SessionSecrets.toCore(log.getSecretHash()));
            case RESUME_SESSION ->
                new Command.ResumeSession(
                        log.getResumeSession().getSessionId(),
                        log.getResumeSession().getExpectedAttachment(),
                        log.getPrincipal());
            case REVOKE_PRINCIPAL ->
                new Command.RevokePrincipal(
                        log.getRevokePrincipal().getPrincipal(),
                        log.getRevokePrincipal().getBarred());
            case REINSTATE_PRINCIPAL ->
                new Command.ReinstatePrincipal(log.getReinstatePrincipal().getPrincipal());
            case ACQUIRE -> {
                var r = log.getAcquire();
                yield new Command.Acquire(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getLock(),
                        r.getWaitMs(),
                        Policy.of(
                                r.getPolicy().getLockDelayMs(),
                                r.getPolicy().getMaxHoldMs(),
                                r.getPolicy().getLeaseTtlMs()),
                        r.getAttempt(),
                        Math.max(1, r.getPermits()),
                        r.getShared(),
                        ElectionValue.of(r.getValue().toByteArray()));
            }
            case PROCLAIM -> {
                var r = log.getProclaim();
                yield new Command.Proclaim(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getLock(),
                        r.getToken(),
                        ElectionValue.of(r.getValue().toByteArray()));
            }
            case DOWNGRADE -> {
                var r = log.getDowngrade();
                yield new Command.Downgrade(r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken());
            }
            case RENEW_LEASE -> {
                var r = log.getRenewLease();
                yield new Command.RenewLease(
                        r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken(), r.getMaxHoldMs());
            }
            case WRITE_CHECKPOINT -> {
                var r = log.getWriteCheckpoint();
                yield new Command.WriteCheckpoint(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getLock(),
                        r.getToken(),
                        r.getValue().toByteArray(),
                        log.getPrincipal());
            }
            case CANCEL_WAIT ->
                new Command.CancelWait(
                        log.getCancelWait().getSessionId(),
                        log.getCancelWait().getRequestId(),
                        log.getCancelWait().getAttempt());
            case RELEASE -> {
                var r = log.getRelease();
                // any_session is what older clients send for a release by token alone: forced.
                yield new Command.Release(r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken(), forced(r));
            }
            case LOCK_STATUS -> new Command.Status(log.getLockStatus().getLock());
            case KV_PUT -> {
                var r = log.getKvPut();
                yield new Command.Put(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getKey(),
                        r.getValue().toByteArray(),
                        r.hasFence() ? r.getFence().getLock() : null,
                        r.hasFence() ? r.getFence().getToken() : 0,
                        r.getOverrideFence(),
                        log.getPrincipal(),
                        r.hasIfVersion() ? r.getIfVersion() : Command.ANY_VERSION,
                        r.getEphemeral());
            }
            case KV_GET -> new Command.Get(log.getKvGet().getKey());
            case KV_DELETE -> {
                var r = log.getKvDelete();
                yield new Command.Delete(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getKey(),
                        r.hasFence() ? r.getFence().getLock() : null,
                        r.hasFence() ? r.getFence().getToken() : 0,
                        r.getOverrideFence(),
                        r.hasIfVersion() ? r.getIfVersion() : Command.ANY_VERSION);
            }
            // A backup reads like a status: the replica that serves it encodes the state after.
            case STATS, BACKUP -> new Command.Stats();
            case LIST_LOCKS -> ListingMapping.toCommand(log.getListLocks());
            case SET_LIMITS -> LimitsMapping.toCommand(log.getSetLimits());
            case CMD_NOT_SET -> throw new IllegalArgumentException("log command without a body");
        };
    }

    /** The reply to {@code log}: the result shaped as the response its request expects. */
    /** A forced release: {@code force}, or the deprecated {@code any_session} of older clients. */
    @SuppressWarnings("deprecation")
    public static boolean forced(ReleaseRequest r) {
        return r.getForce() || r.getAnySession();
    }

    public static Reply toReply(LogCommand log, Result result) {
        Reply.Builder reply = Reply.newBuilder().setCorrelationId(log.getCorrelationId());
        switch (log.getCmdCase()) {
            case OPEN_SESSION -> {
                if (result instanceof Result.SessionOpened opened) {
                    reply.setOpened(AttachResponse.Opened.newBuilder()
                            .setSessionId(opened.sessionId())
                            .setTtlMs(opened.ttlMs()));
                } else {
                    reply.setDone(done(result));
                }
            }
            case RESUME_SESSION -> {
                if (result instanceof Result.SessionResumed resumed) {
                    reply.setResumed(Resumed.newBuilder()
                            .setSessionId(resumed.sessionId())
                            .setTtlMs(resumed.ttlMs())
                            .setAttachment(resumed.attachment()));
                } else if (result instanceof Result.ResumeSuperseded superseded) {
                    reply.setResumed(Resumed.newBuilder()
                            .setSessionId(superseded.sessionId())
                            .setAttachment(superseded.attachment())
                            .setSuperseded(true));
                } else {
                    reply.setDone(done(result));
                }
            }
            case KEEP_ALIVE ->
                reply.setKeepAlive(KeepAliveBatchResult.newBuilder()
                        .addAllLostSessionIds(((Result.KeepAliveResult) result).lostSessionIds()));
            case ACQUIRE -> {
                if (result instanceof Result.Queued queued) {
                    reply.setQueued(Queued.newBuilder().setHolderToken(queued.holderToken()));
                } else {
                    reply.setAcquire(acquireResponse(result));
                }
            }
            case RELEASE -> {
                Done d = done(result);
                reply.setRelease(ReleaseResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(currentToken(result)));
            }
            case KV_PUT -> {
                Done d = done(result);
                reply.setKvPut(KvPutResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(fenceToken(result))
                        .setVersion(version(result)));
            }
            case KV_DELETE -> {
                Done d = done(result);
                reply.setKvDelete(KvDeleteResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(fenceToken(result))
                        .setVersion(version(result)));
            }
            case RENEW_LEASE -> {
                Done d = done(result);
                reply.setRenewLease(RenewLeaseResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setRemainingMs(result instanceof Result.LeaseRenewed r ? r.remainingMs() : 0)
                        .setCurrentToken(currentToken(result)));
            }
            case DOWNGRADE -> {
                Done d = done(result);
                reply.setDowngrade(DowngradeResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(currentToken(result)));
            }
            case PROCLAIM -> {
                Done d = done(result);
                reply.setProclaim(ProclaimResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(currentToken(result)));
            }
            case WRITE_CHECKPOINT -> {
                Done d = done(result);
                reply.setWriteCheckpoint(WriteCheckpointResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(currentToken(result)));
            }
            case KV_GET -> reply.setKvGet(kvGetResponse(result));
            case LOCK_STATUS -> reply.setLockStatus(lockStatus(result));
            case LIST_LOCKS -> reply.setListLocks(ListingMapping.toWire(result));
            case STATS, BACKUP -> {
                var s = (Result.Stats) result;
                reply.setStats(Stats.newBuilder()
                        .setSessions(s.sessions())
                        .setLocks(s.locks())
                        .setHeld(s.held())
                        .setLastToken(s.lastToken())
                        .setNowMs(s.nowMs())
                        .setStaleWritesRejected(s.staleWritesRejected()));
            }
            case CLOSE_SESSION, CANCEL_WAIT, SET_LIMITS, REVOKE_PRINCIPAL, REINSTATE_PRINCIPAL, CMD_NOT_SET ->
                reply.setDone(done(result));
            case ABANDON_OPEN -> {
                // Its sender only waits for it to commit: the reply carries no body.
            }
        }
        return reply.build();
    }

    public static Egress toEgress(Event event) {
        Egress.Builder egress = Egress.newBuilder();
        var e = egress.getEventBuilder();
        if (event instanceof Event.WaitResolved w) {
            e.setWaitResolved(WaitResolved.newBuilder()
                    .setSessionId(w.sessionId())
                    .setRequestId(w.requestId())
                    .setResponse(acquireResponse(w.result()))
                    .setAttempt(w.attempt()));
        } else if (event instanceof Event.LeaseEnded l) {
            e.setLeaseEnded(LeaseEnded.newBuilder()
                    .setSessionId(l.sessionId())
                    .setLock(l.lock())
                    .setToken(l.token())
                    .setEndValue(toWire(l.end())));
        } else if (event instanceof Event.SessionEnded s) {
            e.setSessionEnded(
                    SessionEnded.newBuilder().setSessionId(s.sessionId()).setEndValue(toWire(s.end())));
        }
        return egress.build();
    }

    private static AcquireResponse acquireResponse(Result result) {
        if (result instanceof Result.Granted granted) {
            AcquireResponse.Builder b = AcquireResponse.newBuilder().setCodeValue(CODE_OK_VALUE);
            grant(granted.grant(), b);
            return b.build();
        }
        Done d = done(result);
        return AcquireResponse.newBuilder()
                .setCode(d.getCode())
                .setMessage(d.getMessage())
                .setHolderToken(currentToken(result))
                .build();
    }

    /** The grant as the holder is told of it, on {@code response}. */
    private static void grant(Grant g, AcquireResponse.Builder response) {
        var b = response.getGrantBuilder()
                .setLock(g.lock())
                .setToken(g.token())
                .setSessionId(g.sessionId())
                .setGrantedAtMs(g.grantedAtMs())
                .setTtlMs(g.ttlMs())
                .setPreviousEndValue(toWire(g.previousEnd()))
                .setPreviousToken(g.previousToken())
                .setValue(ByteString.copyFrom(g.value().bytes()));
        Policy p = g.policy();
        b.getPolicyBuilder()
                .setLockDelayMs(p.lockDelayMs())
                .setMaxHoldMs(p.maxHoldMs())
                .setLeaseTtlMs(p.leaseTtlMs());
        Checkpoint c = g.previousCheckpoint();
        if (c != null) {
            b.getPreviousCheckpointBuilder()
                    .setValue(ByteString.copyFrom(c.value()))
                    .setToken(c.token())
                    .setWrittenAtMs(c.writtenAtMs());
        }
    }

    private static KvGetResponse kvGetResponse(Result result) {
        if (result instanceof Result.KvValue v) {
            return KvGetResponse.newBuilder()
                    .setCodeValue(CODE_OK_VALUE)
                    .setValue(ByteString.copyFrom(v.value()))
                    .setToken(v.token())
                    .setLock(v.lock() == null ? "" : v.lock())
                    .setWrittenAtMs(v.writtenAtMs())
                    .setVersion(v.version())
                    .setEphemeral(v.ephemeralSessionId() != 0)
                    .setEphemeralSessionId(v.ephemeralSessionId())
                    .build();
        }
        Done d = done(result);
        return KvGetResponse.newBuilder()
                .setCode(d.getCode())
                .setMessage(d.getMessage())
                .build();
    }

    static dev.tenure.api.v1.Holder holder(Result.Holder h) {
        long ends = h.endsAtMs();
        Policy p = h.policy();
        dev.tenure.api.v1.Holder.Builder b = dev.tenure.api.v1.Holder.newBuilder()
                .setSessionId(h.sessionId())
                .setToken(h.token())
                .setSinceMs(h.sinceMs())
                .setClientName(h.clientName())
                .setPrincipal(h.principal())
                .setEndsAtMs(ends == Long.MAX_VALUE ? 0 : ends)
                .setShared(h.shared())
                .setValue(ByteString.copyFrom(h.value().bytes()));
        b.getPolicyBuilder()
                .setLockDelayMs(p.lockDelayMs())
                .setMaxHoldMs(p.maxHoldMs())
                .setLeaseTtlMs(p.leaseTtlMs());
        return b.build();
    }

    private static LockStatusResponse lockStatus(Result result) {
        if (!(result instanceof Result.LockView view)) {
            Done d = done(result);
            return LockStatusResponse.newBuilder()
                    .setCode(d.getCode())
                    .setMessage(d.getMessage())
                    .build();
        }
        LockStatusResponse.Builder b = LockStatusResponse.newBuilder()
                .setCodeValue(CODE_OK_VALUE)
                .setLock(view.lock())
                .setNowMs(view.nowMs())
                .setDelayUntilMs(view.delayUntilMs());
        if (view.holder() != null) {
            b.setHolder(holder(view.holder()));
        }
        for (Result.Holder h : view.holders()) {
            b.addHolders(holder(h));
        }
        b.setPermits(view.permits());
        Checkpoint c = view.checkpoint();
        if (c != null) {
            b.getCheckpointBuilder()
                    .setValue(ByteString.copyFrom(c.value()))
                    .setToken(c.token())
                    .setWrittenAtMs(c.writtenAtMs());
        }
        StaleWrites sw = view.staleWrites();
        b.getStaleWritesBuilder()
                .setCount(sw.count())
                .setLastToken(sw.lastToken())
                .setLastCurrentToken(sw.lastCurrentToken())
                .setLastTarget(sw.lastTarget())
                .setLastAtMs(sw.lastAtMs());
        for (Result.WaiterView w : view.waiters()) {
            b.addWaiters(Waiter.newBuilder()
                    .setSessionId(w.sessionId())
                    .setSinceMs(w.sinceMs())
                    .setClientName(w.clientName())
                    .setPrincipal(w.principal())
                    .setShared(w.shared())
                    .setValue(ByteString.copyFrom(w.value().bytes())));
        }
        for (TenureRecord r : view.history()) {
            b.addHistoryBuilder()
                    .setSessionId(r.sessionId())
                    .setToken(r.token())
                    .setGrantedAtMs(r.grantedAtMs())
                    .setEndedAtMs(r.endedAtMs())
                    .setEndValue(toWire(r.end()))
                    .setForcedBySessionId(r.forcedBySessionId())
                    .setForcedByClient(r.forcedByClient())
                    .setPrincipal(r.principal())
                    .setForcedByPrincipal(r.forcedByPrincipal());
        }
        return b.build();
    }

    /** A lease as status and listing show it; 0 for ends_at_ms when only its session bounds it. */
    static Done done(Result result) {
        if (result instanceof Result.Rejected rejected) {
            return Done.newBuilder()
                    .setCodeValue(toWire(rejected.code()))
                    .setMessage(rejected.message())
                    .build();
        }
        return Done.newBuilder().setCodeValue(CODE_OK_VALUE).build();
    }

    private static long currentToken(Result result) {
        return result instanceof Result.Rejected rejected ? rejected.currentToken() : 0;
    }

    /** A KV write's current_token: a version mismatch carries a version there, which has a field of its own. */
    private static long fenceToken(Result result) {
        return result instanceof Result.Rejected r && r.code() == Code.VERSION_MISMATCH ? 0 : currentToken(result);
    }

    /** The key's version a KV write reports: the one written, or the current one on a mismatch. */
    private static long version(Result result) {
        if (result instanceof Result.Written w) {
            return w.version();
        }
        return result instanceof Result.Rejected r && r.code() == Code.VERSION_MISMATCH ? r.currentToken() : 0;
    }

    /** The wire number of {@code code}: the wire's enum shares the core's names, not its type. */
    public static int toWire(Code code) {
        return switch (code) {
            case OK -> CODE_OK_VALUE;
            case HELD -> CODE_HELD_VALUE;
            case NOT_OWNER -> CODE_NOT_OWNER_VALUE;
            case STALE_TOKEN -> CODE_STALE_TOKEN_VALUE;
            case SESSION_LOST -> CODE_SESSION_LOST_VALUE;
            case NOT_FOUND -> CODE_NOT_FOUND_VALUE;
            case LIMIT -> CODE_LIMIT_VALUE;
            case REQUEST_TOO_OLD -> CODE_REQUEST_TOO_OLD_VALUE;
            case INVALID -> CODE_INVALID_VALUE;
            case CANCELLED -> CODE_CANCELLED_VALUE;
            case KEY_FENCED -> CODE_KEY_FENCED_VALUE;
            case DENIED -> CODE_DENIED_VALUE;
            case VERSION_MISMATCH -> CODE_VERSION_MISMATCH_VALUE;
            case EPHEMERAL_CONFLICT -> CODE_EPHEMERAL_CONFLICT_VALUE;
        };
    }

    /** The wire number of {@code end}. */
    public static int toWire(TenureEnd end) {
        return switch (end) {
            case NONE -> TENURE_END_NONE_VALUE;
            case RELEASED -> TENURE_END_RELEASED_VALUE;
            case EXPIRED -> TENURE_END_EXPIRED_VALUE;
            case DISCONNECTED -> TENURE_END_DISCONNECTED_VALUE;
            case REVOKED -> TENURE_END_REVOKED_VALUE;
        };
    }

    /** The tenure end a wire number stands for; an unknown one is NONE. */
    public static TenureEnd toCore(int end) {
        return switch (end) {
            case TENURE_END_RELEASED_VALUE -> TenureEnd.RELEASED;
            case TENURE_END_EXPIRED_VALUE -> TenureEnd.EXPIRED;
            case TENURE_END_DISCONNECTED_VALUE -> TenureEnd.DISCONNECTED;
            case TENURE_END_REVOKED_VALUE -> TenureEnd.REVOKED;
            default -> TenureEnd.NONE;
        };
    }
}
