package dev.tenure.sim;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.core.Code;
import dev.tenure.core.Command;
import dev.tenure.core.Grant;
import dev.tenure.core.Policy;
import dev.tenure.core.Result;
import dev.tenure.core.TenureEnd;

/**
 * Wire messages to core commands and core results back to wire messages, for the requests the
 * simulated clients make. It follows the server's own mapping (WireMapping), which the
 * simulation cannot use: that lives in the server module, next to Aeron.
 */
final class Wire {
    private Wire() {}

    static Command.Acquire acquire(AcquireRequest r) {
        var p = r.getPolicy();
        return new Command.Acquire(
                r.getSessionId(),
                r.getRequestId(),
                r.getLock(),
                r.getWaitMs(),
                Policy.of(p.getLockDelayMs(), p.getMaxHoldMs(), p.getLeaseTtlMs()),
                r.getAttempt());
    }

    static Command.Release release(ReleaseRequest r) {
        return new Command.Release(r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken(), r.getAnySession());
    }

    static Command.RenewLease renew(RenewLeaseRequest r) {
        return new Command.RenewLease(r.getSessionId(), r.getRequestId(), r.getLock(), r.getToken());
    }

    static Command.Put put(KvPutRequest r) {
        boolean fenced = r.hasFence();
        return new Command.Put(
                r.getSessionId(),
                r.getRequestId(),
                r.getKey(),
                r.getValue().toByteArray(),
                fenced ? r.getFence().getLock() : null,
                fenced ? r.getFence().getToken() : 0);
    }

    static AcquireResponse acquireResponse(Result result) {
        if (result instanceof Result.Granted g) {
            return AcquireResponse.newBuilder()
                    .setCode(dev.tenure.api.v1.Code.CODE_OK)
                    .setGrant(grant(g.grant()))
                    .build();
        }
        Result.Rejected x = rejected(result);
        return AcquireResponse.newBuilder()
                .setCode(code(x.code()))
                .setMessage(x.message())
                .setHolderToken(x.currentToken())
                .build();
    }

    static ReleaseResponse releaseResponse(Result result) {
        Result.Rejected x = rejectedOrOk(result);
        return ReleaseResponse.newBuilder()
                .setCode(code(x.code()))
                .setMessage(x.message())
                .setCurrentToken(x.currentToken())
                .build();
    }

    static RenewLeaseResponse renewResponse(Result result) {
        if (result instanceof Result.Renewed r) {
            return RenewLeaseResponse.newBuilder()
                    .setCode(dev.tenure.api.v1.Code.CODE_OK)
                    .setRemainingMs(r.remainingMs())
                    .build();
        }
        Result.Rejected x = rejected(result);
        return RenewLeaseResponse.newBuilder()
                .setCode(code(x.code()))
                .setMessage(x.message())
                .setCurrentToken(x.currentToken())
                .build();
    }

    static KvPutResponse putResponse(Result result) {
        Result.Rejected x = rejectedOrOk(result);
        return KvPutResponse.newBuilder()
                .setCode(code(x.code()))
                .setMessage(x.message())
                .setCurrentToken(x.currentToken())
                .build();
    }

    static dev.tenure.api.v1.Grant grant(Grant g) {
        return dev.tenure.api.v1.Grant.newBuilder()
                .setLock(g.lock())
                .setToken(g.token())
                .setSessionId(g.sessionId())
                .setGrantedAtMs(g.grantedAtMs())
                .setTtlMs(g.ttlMs())
                .setPreviousEnd(end(g.previousEnd()))
                .setPreviousToken(g.previousToken())
                .setPolicy(dev.tenure.api.v1.Policy.newBuilder()
                        .setLockDelayMs(g.policy().lockDelayMs())
                        .setMaxHoldMs(g.policy().maxHoldMs())
                        .setLeaseTtlMs(g.policy().leaseTtlMs()))
                .build();
    }

    static dev.tenure.api.v1.Code code(Code code) {
        return dev.tenure.api.v1.Code.valueOf("CODE_" + code.name());
    }

    static dev.tenure.api.v1.TenureEnd end(TenureEnd end) {
        return dev.tenure.api.v1.TenureEnd.valueOf("TENURE_END_" + end.name());
    }

    static TenureEnd end(dev.tenure.api.v1.TenureEnd end) {
        return switch (end) {
            case TENURE_END_RELEASED -> TenureEnd.RELEASED;
            case TENURE_END_EXPIRED -> TenureEnd.EXPIRED;
            case TENURE_END_DISCONNECTED -> TenureEnd.DISCONNECTED;
            case TENURE_END_REVOKED -> TenureEnd.REVOKED;
            case TENURE_END_NONE, UNRECOGNIZED -> TenureEnd.NONE;
        };
    }

    private static Result.Rejected rejectedOrOk(Result result) {
        return result instanceof Result.Ok ? new Result.Rejected(Code.OK, "", 0) : rejected(result);
    }

    private static Result.Rejected rejected(Result result) {
        if (result instanceof Result.Rejected x) {
            return x;
        }
        throw new IllegalStateException("unexpected result " + result);
    }
}
