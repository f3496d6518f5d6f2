package dev.tenure.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.api.internal.Done;
import dev.tenure.api.internal.Egress;
import dev.tenure.api.internal.KeepAliveBatchResult;
import dev.tenure.api.internal.LogCommand;
import dev.tenure.api.internal.Queued;
import dev.tenure.api.internal.Reply;
import dev.tenure.api.internal.Resumed;
import dev.tenure.api.internal.SessionEnded;
import dev.tenure.api.internal.Stats;
import dev.tenure.api.internal.WaitResolved;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.Holder;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.Waiter;
import dev.tenure.api.v1.WriteCheckpointResponse;
import dev.tenure.core.Checkpoint;
import dev.tenure.core.Code;
import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Grant;
import dev.tenure.core.Policy;
import dev.tenure.core.Result;
import dev.tenure.core.StaleWrites;
import dev.tenure.core.TenureEnd;
import dev.tenure.core.TenureRecord;

/**
 * Translates between the log's protobuf messages and the core's command, result and event values:
 * the one mapping, used by the clustered service on every replica and by the simulation's log.
 * Pure functions: every replica must map the same entry to the same command, so they depend on
 * nothing but their arguments.
 */
public final class WireMapping {

    private WireMapping() {}

    public static Command toCommand(LogCommand log) {
        return switch (log.getCmdCase()) {
            case OPEN_SESSION ->
                new Command.OpenSession(
                        log.getOpenSession().getTtlMs(), log.getOpenSession().getClientName());
            case KEEP_ALIVE -> new Command.KeepAlive(log.getKeepAlive().getSessionIdsList());
            case CLOSE_SESSION ->
                new Command.CloseSession(
                        log.getCloseSession().getSessionId(),
                        toCore(log.getCloseSession().getEnd()),
                        log.getCloseSession().getAttachment());
            case RESUME_SESSION ->
                new Command.ResumeSession(log.getResumeSession().getSessionId());
            case ACQUIRE -> {
                var r = log.getAcquire();
                yield new Command.Acquire(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getLock(),
                        r.getWaitMs(),
                        toCore(r.getPolicy()),
                        r.getAttempt());
            }
            case RENEW_LEASE -> {
                var r = log.getRenewLease();
                yield new Command.RenewLease(r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken());
            }
            case WRITE_CHECKPOINT -> {
                var r = log.getWriteCheckpoint();
                yield new Command.WriteCheckpoint(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getLock(),
                        r.getToken(),
                        r.getValue().toByteArray());
            }
            case CANCEL_WAIT ->
                new Command.CancelWait(
                        log.getCancelWait().getSessionId(),
                        log.getCancelWait().getRequestId(),
                        log.getCancelWait().getAttempt());
            case RELEASE -> {
                var r = log.getRelease();
                yield new Command.Release(
                        r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken(), r.getAnySession());
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
                        r.hasFence() ? r.getFence().getToken() : 0);
            }
            case KV_GET -> new Command.Get(log.getKvGet().getKey());
            case KV_DELETE -> {
                var r = log.getKvDelete();
                yield new Command.Delete(
                        r.getSessionId(),
                        r.getRequestId(),
                        r.getKey(),
                        r.hasFence() ? r.getFence().getLock() : null,
                        r.hasFence() ? r.getFence().getToken() : 0);
            }
            case STATS -> new Command.Stats();
            case CMD_NOT_SET -> throw new IllegalArgumentException("log command without a body");
        };
    }

    /** The reply to {@code log}: the result shaped as the response its request expects. */
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
                        .setCurrentToken(currentToken(result)));
            }
            case KV_DELETE -> {
                Done d = done(result);
                reply.setKvDelete(KvDeleteResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setCurrentToken(currentToken(result)));
            }
            case RENEW_LEASE -> {
                Done d = done(result);
                reply.setRenewLease(RenewLeaseResponse.newBuilder()
                        .setCode(d.getCode())
                        .setMessage(d.getMessage())
                        .setRemainingMs(result instanceof Result.Renewed r ? r.remainingMs() : 0)
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
            case STATS -> {
                var s = (Result.Stats) result;
                reply.setStats(Stats.newBuilder()
                        .setSessions(s.sessions())
                        .setLocks(s.locks())
                        .setHeld(s.held())
                        .setLastToken(s.lastToken())
                        .setNowMs(s.nowMs())
                        .setStaleWritesRejected(s.staleWritesRejected()));
            }
            case CLOSE_SESSION, CANCEL_WAIT, CMD_NOT_SET -> reply.setDone(done(result));
        }
        return reply.build();
    }

    public static Egress toEgress(Event event) {
        dev.tenure.api.internal.Event.Builder e = dev.tenure.api.internal.Event.newBuilder();
        if (event instanceof Event.WaitResolved w) {
            e.setWaitResolved(WaitResolved.newBuilder()
                    .setSessionId(w.sessionId())
                    .setRequestId(w.requestId())
                    .setResponse(acquireResponse(w.result())));
        } else if (event instanceof Event.LeaseEnded l) {
            e.setLeaseEnded(dev.tenure.api.internal.LeaseEnded.newBuilder()
                    .setSessionId(l.sessionId())
                    .setLock(l.lock())
                    .setToken(l.token())
                    .setEnd(toWire(l.end())));
        } else if (event instanceof Event.SessionEnded s) {
            e.setSessionEnded(
                    SessionEnded.newBuilder().setSessionId(s.sessionId()).setEnd(toWire(s.end())));
        }
        return Egress.newBuilder().setEvent(e).build();
    }

    public static AcquireResponse acquireResponse(Result result) {
        if (result instanceof Result.Granted granted) {
            return AcquireResponse.newBuilder()
                    .setCode(dev.tenure.api.v1.Code.CODE_OK)
                    .setGrant(grant(granted.grant()))
                    .build();
        }
        Done d = done(result);
        return AcquireResponse.newBuilder()
                .setCode(d.getCode())
                .setMessage(d.getMessage())
                .setHolderToken(currentToken(result))
                .build();
    }

    public static dev.tenure.api.v1.Grant grant(Grant g) {
        dev.tenure.api.v1.Grant.Builder b = dev.tenure.api.v1.Grant.newBuilder()
                .setLock(g.lock())
                .setToken(g.token())
                .setSessionId(g.sessionId())
                .setGrantedAtMs(g.grantedAtMs())
                .setTtlMs(g.ttlMs())
                .setPreviousEnd(toWire(g.previousEnd()))
                .setPreviousToken(g.previousToken())
                .setPolicy(toWire(g.policy()));
        if (g.previousCheckpoint() != null) {
            b.setPreviousCheckpoint(toWire(g.previousCheckpoint()));
        }
        return b.build();
    }

    public static dev.tenure.api.v1.Policy toWire(Policy p) {
        return dev.tenure.api.v1.Policy.newBuilder()
                .setLockDelayMs(p.lockDelayMs())
                .setMaxHoldMs(p.maxHoldMs())
                .setLeaseTtlMs(p.leaseTtlMs())
                .build();
    }

    public static Policy toCore(dev.tenure.api.v1.Policy p) {
        return Policy.of(p.getLockDelayMs(), p.getMaxHoldMs(), p.getLeaseTtlMs());
    }

    public static dev.tenure.api.v1.Checkpoint toWire(Checkpoint c) {
        return dev.tenure.api.v1.Checkpoint.newBuilder()
                .setValue(ByteString.copyFrom(c.value()))
                .setToken(c.token())
                .setWrittenAtMs(c.writtenAtMs())
                .build();
    }

    private static KvGetResponse kvGetResponse(Result result) {
        if (result instanceof Result.KvValue v) {
            return KvGetResponse.newBuilder()
                    .setCode(dev.tenure.api.v1.Code.CODE_OK)
                    .setValue(ByteString.copyFrom(v.value()))
                    .setToken(v.token())
                    .setLock(v.lock() == null ? "" : v.lock())
                    .setWrittenAtMs(v.writtenAtMs())
                    .build();
        }
        Done d = done(result);
        return KvGetResponse.newBuilder()
                .setCode(d.getCode())
                .setMessage(d.getMessage())
                .build();
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
                .setCode(dev.tenure.api.v1.Code.CODE_OK)
                .setLock(view.lock())
                .setNowMs(view.nowMs())
                .setDelayUntilMs(view.delayUntilMs());
        if (view.holder() != null) {
            long ends = view.holder().endsAtMs();
            b.setHolder(Holder.newBuilder()
                    .setSessionId(view.holder().sessionId())
                    .setToken(view.holder().token())
                    .setSinceMs(view.holder().sinceMs())
                    .setClientName(view.holder().clientName())
                    .setPolicy(toWire(view.holder().policy()))
                    .setEndsAtMs(ends == Long.MAX_VALUE ? 0 : ends));
        }
        if (view.checkpoint() != null) {
            b.setCheckpoint(toWire(view.checkpoint()));
        }
        StaleWrites sw = view.staleWrites();
        b.setStaleWrites(dev.tenure.api.v1.StaleWrites.newBuilder()
                .setCount(sw.count())
                .setLastToken(sw.lastToken())
                .setLastCurrentToken(sw.lastCurrentToken())
                .setLastTarget(sw.lastTarget())
                .setLastAtMs(sw.lastAtMs()));
        for (Result.WaiterView w : view.waiters()) {
            b.addWaiters(Waiter.newBuilder()
                    .setSessionId(w.sessionId())
                    .setSinceMs(w.sinceMs())
                    .setClientName(w.clientName()));
        }
        for (TenureRecord r : view.history()) {
            b.addHistory(dev.tenure.api.v1.TenureRecord.newBuilder()
                    .setSessionId(r.sessionId())
                    .setToken(r.token())
                    .setGrantedAtMs(r.grantedAtMs())
                    .setEndedAtMs(r.endedAtMs())
                    .setEnd(toWire(r.end())));
        }
        return b.build();
    }

    private static Done done(Result result) {
        if (result instanceof Result.Rejected rejected) {
            return Done.newBuilder()
                    .setCode(toWire(rejected.code()))
                    .setMessage(rejected.message())
                    .build();
        }
        return Done.newBuilder().setCode(dev.tenure.api.v1.Code.CODE_OK).build();
    }

    private static long currentToken(Result result) {
        return result instanceof Result.Rejected rejected ? rejected.currentToken() : 0;
    }

    public static dev.tenure.api.v1.Code toWire(Code code) {
        return switch (code) {
            case OK -> dev.tenure.api.v1.Code.CODE_OK;
            case HELD -> dev.tenure.api.v1.Code.CODE_HELD;
            case NOT_OWNER -> dev.tenure.api.v1.Code.CODE_NOT_OWNER;
            case STALE_TOKEN -> dev.tenure.api.v1.Code.CODE_STALE_TOKEN;
            case SESSION_LOST -> dev.tenure.api.v1.Code.CODE_SESSION_LOST;
            case NOT_FOUND -> dev.tenure.api.v1.Code.CODE_NOT_FOUND;
            case LIMIT -> dev.tenure.api.v1.Code.CODE_LIMIT;
            case REQUEST_TOO_OLD -> dev.tenure.api.v1.Code.CODE_REQUEST_TOO_OLD;
            case INVALID -> dev.tenure.api.v1.Code.CODE_INVALID;
            case CANCELLED -> dev.tenure.api.v1.Code.CODE_CANCELLED;
        };
    }

    public static dev.tenure.api.v1.TenureEnd toWire(TenureEnd end) {
        return switch (end) {
            case NONE -> dev.tenure.api.v1.TenureEnd.TENURE_END_NONE;
            case RELEASED -> dev.tenure.api.v1.TenureEnd.TENURE_END_RELEASED;
            case EXPIRED -> dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED;
            case DISCONNECTED -> dev.tenure.api.v1.TenureEnd.TENURE_END_DISCONNECTED;
            case REVOKED -> dev.tenure.api.v1.TenureEnd.TENURE_END_REVOKED;
        };
    }

    public static TenureEnd toCore(dev.tenure.api.v1.TenureEnd end) {
        return switch (end) {
            case TENURE_END_RELEASED -> TenureEnd.RELEASED;
            case TENURE_END_EXPIRED -> TenureEnd.EXPIRED;
            case TENURE_END_DISCONNECTED -> TenureEnd.DISCONNECTED;
            case TENURE_END_REVOKED -> TenureEnd.REVOKED;
            case TENURE_END_NONE, UNRECOGNIZED -> TenureEnd.NONE;
        };
    }
}
