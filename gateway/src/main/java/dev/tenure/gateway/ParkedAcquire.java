package dev.tenure.gateway;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.log.v1.CancelWait;
import dev.tenure.log.v1.LogCommand;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/** An acquire call held open until the state machine decides it. Answers exactly once. */
final class ParkedAcquire implements SessionRegistry.WaitingAcquire {
    private final Gateway gateway;
    private final AcquireRequest request;
    private final Answer<AcquireResponse> answer;
    private final AtomicBoolean answered = new AtomicBoolean();

    ParkedAcquire(Gateway gateway, AcquireRequest request, Answer<AcquireResponse> answer) {
        this.gateway = gateway;
        this.request = request;
        this.answer = answer;
    }

    void start() {
        // Registered before the command is sent, so a grant that follows the Queued reply at once
        // can never arrive before anyone listens for it.
        gateway.registry().addWait(request.getSessionId(), request.getRequestId(), this);
        answer.onCancel(this::cancelled);
        LogCommand.Builder cmd = Gateway.withSecret(
                LogCommand.newBuilder().setAcquire(request.toBuilder().clearSessionSecret()),
                request.getSessionId(),
                request.getSessionSecret());
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = gateway.log().submit(cmd).whenComplete((reply, error) -> {
            if (error != null) {
                forget();
                answer(null, Gateway.unavailable(error));
            } else if (!reply.hasQueued()) {
                forget();
                answer(reply.getAcquire(), null);
            }
            // Queued: the answer comes as a WaitResolved event.
        });
    }

    @Override
    public long attempt() {
        return request.getAttempt();
    }

    @Override
    public void resolve(AcquireResponse response) {
        answer(response, null);
    }

    @Override
    public void superseded() {
        answer(
                null,
                Status.ABORTED
                        .withDescription("superseded by a retry of the same request")
                        .asRuntimeException());
    }

    /**
     * The call ended unanswered: the client stopped waiting (its process died, it cancelled), or
     * the call was cut while the client goes on: a try's deadline (a client with several endpoints
     * gives each try part of its budget, then tries the next node at once) or a reset connection.
     * Withdraw the wait, a moment later: the withdrawal names this call's try, so it changes
     * nothing once the client's next try has reached the log, and the moment lets that try get
     * there first; otherwise the wait would be gone and the next try answered CANCELLED.
     */
    private void cancelled() {
        if (answered.compareAndSet(false, true)) {
            forget();
            gateway.later(Gateway.WITHDRAW_DELAY_MS, this::withdraw);
        }
    }

    /** Cancels the wait, or releases the lease if the grant raced ahead of the cancel. */
    private void withdraw() {
        // With the acquire's secret: a caller that named another client's session and then cut its
        // call must not withdraw that client's wait. Sent once: if it is lost, the wait ends with
        // its session, as before this call.
        var unused = gateway.log()
                .submit(Gateway.withSecret(
                        LogCommand.newBuilder()
                                .setCancelWait(CancelWait.newBuilder()
                                        .setSessionId(request.getSessionId())
                                        .setRequestId(request.getRequestId())
                                        .setAttempt(request.getAttempt())),
                        request.getSessionId(),
                        request.getSessionSecret()));
    }

    private void forget() {
        gateway.registry().removeWait(request.getSessionId(), request.getRequestId(), this);
    }

    private void answer(@Nullable AcquireResponse response, @Nullable StatusRuntimeException error) {
        if (!answered.compareAndSet(false, true)) {
            return;
        }
        boolean grant = response != null && response.hasGrant();
        if (answer.cancelled()) {
            // Nobody will learn of this grant: give the lock back instead of holding it for a
            // caller that stopped listening.
            if (grant) {
                withdraw();
            }
            return;
        }
        try {
            if (error != null) {
                answer.fail(error);
            } else {
                answer.ok(Objects.requireNonNull(response, "answer() has a response or an error"));
            }
        } catch (RuntimeException gone) {
            if (grant) {
                withdraw();
            }
        }
    }
}
