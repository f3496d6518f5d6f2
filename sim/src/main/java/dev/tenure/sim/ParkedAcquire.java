package dev.tenure.sim;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.core.Command;
import dev.tenure.core.Result;
import io.grpc.Status;

/**
 * An acquire call held open at a node until the state machine decides it, after the server's
 * gateway: answered exactly once; a client that stops waiting withdraws the wait through the log,
 * and a grant that raced ahead of the withdrawal is given back (CancelWait releases it).
 */
final class ParkedAcquire {
    /** As the server's gateway (TenureGateway.WITHDRAW_DELAY_MS). */
    static final long WITHDRAW_DELAY_MS = 1_000;

    private final Gateway gateway;
    private final ServerCall call;
    private final AcquireRequest request;
    private boolean answered;

    ParkedAcquire(Gateway gateway, ServerCall call, AcquireRequest request) {
        this.gateway = gateway;
        this.call = call;
        this.request = request;
    }

    long sessionId() {
        return request.getSessionId();
    }

    long requestId() {
        return request.getRequestId();
    }

    /** Registered before the command is sent, so a grant that follows the Queued reply always finds it. */
    void start() {
        call.acquire = this;
        gateway.addWait(this);
        gateway.submit(Wire.acquire(request), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                if (!(result instanceof Result.Queued)) { // queued: the answer comes as a WaitResolved
                    gateway.removeWait(ParkedAcquire.this);
                    answer(Wire.acquireResponse(result), null);
                }
            }

            @Override
            public void failed(String why) {
                gateway.removeWait(ParkedAcquire.this);
                answer(null, Status.UNAVAILABLE.withDescription(why));
            }
        });
    }

    void resolve(AcquireResponse response) {
        answer(response, null);
    }

    /** A retry of the same request replaced this call; it must not hang. */
    void superseded() {
        answer(null, Status.ABORTED.withDescription("superseded by a retry of the same request"));
    }

    /**
     * The call ended unanswered (the client gave up, or the call was cut while the client goes
     * on): withdraw the wait a moment later, so that the client's next try gets to the log first.
     */
    void cancelled() {
        if (!answered) {
            answered = true;
            gateway.removeWait(this);
            gateway.later(WITHDRAW_DELAY_MS, this::withdraw);
        }
    }

    private void withdraw() {
        gateway.submit(
                new Command.CancelWait(request.getSessionId(), request.getRequestId(), request.getAttempt()),
                Gateway.IGNORE);
    }

    private void answer(AcquireResponse response, Status error) {
        if (answered) {
            return;
        }
        answered = true;
        if (call.cancelled) {
            // Nobody will learn of this grant: give the lock back instead of holding it for a
            // caller that stopped listening.
            if (response != null && response.hasGrant()) {
                withdraw();
            }
            return;
        }
        if (error != null) {
            call.close(error);
        } else {
            call.reply(response);
        }
    }
}
