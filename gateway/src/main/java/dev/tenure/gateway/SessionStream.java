package dev.tenure.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.AttachResponse.Opened;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.log.v1.CloseSession;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.OpenSession;
import dev.tenure.log.v1.Reply;
import dev.tenure.log.v1.ResumeSession;
import dev.tenure.log.v1.Resumed;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.jspecify.annotations.Nullable;

/**
 * One client's session stream (an Attach call, or one session's sub-stream of an AttachMany call:
 * see {@link AttachDemux}). The session is bound to this stream's connection: if the stream
 * breaks without a Close (the client process exited or was killed and the kernel closed its
 * socket), the session is ended through the log as DISCONNECTED once its disconnect grace has
 * passed (at once with a grace of 0), so its locks pass to the next waiter without waiting for
 * the TTL. The close names the attachment this stream carried: if the client resumed the session
 * on another stream meanwhile (its connection was reset, not its process killed), the close
 * changes nothing. A stream that merely goes quiet (the process is paused, the network is
 * partitioned) keeps its session until the TTL: only a closed connection is evidence that the
 * holder is gone.
 *
 * <p>Why a client may count on the grace: every answer that proves the session to the client (an
 * Opened, a keepalive ack, an Echoed) is sent under this stream's lock before the stream is marked
 * gone, so it leaves before the grace starts; the client, counting from that request's send time,
 * stops trusting its leases within the grace, before the close can be applied. Echoes are what let
 * the grace be short: they cost no log entry, so a client can ask several times per grace.
 */
final class SessionStream implements StreamObserver<AttachRequest> {

    private static final int SESSION_RENEW_ATTEMPTS = 3;

    private final Gateway gateway;
    private final SessionRegistry registry;
    private final LogPort log;
    private final RequestValidator validator;
    private final StreamObserver<AttachResponse> out;
    private final Object lock = new Object();
    private long sessionId; // guarded by lock; 0 until opened or resumed
    private long attachment; // guarded by lock: which attachment of the session this stream carries
    private long graceMs; // guarded by lock: the session's disconnect grace, as the client asked
    private boolean closeRequested; // guarded by lock: the client asked to end the session
    private boolean clientGone; // guarded by lock: the client's side of the stream ended
    private boolean responseDone; // guarded by lock: our side of the stream is completed

    SessionStream(Gateway gateway, StreamObserver<AttachResponse> out) {
        this.gateway = gateway;
        this.registry = gateway.registry();
        this.log = gateway.log();
        this.validator = gateway.validator();
        this.out = out;
    }

    @Override
    public void onNext(AttachRequest request) {
        try {
            switch (request.getKindCase()) {
                case OPEN -> open(request.getOpen());
                case RESUME -> resume(request.getResume());
                case KEEP_ALIVE -> keepAlive(request.getKeepAlive().getSeq());
                case CLOSE -> close(request.getClose().getEnd());
                case ECHO -> echo(request.getEcho().getSeq());
                case KIND_NOT_SET -> throw RequestValidator.invalid("empty attach message");
            }
        } catch (StatusRuntimeException e) {
            fail(e.getStatus());
        }
    }

    private void open(AttachRequest.Open open) {
        requireUnbound();
        validator.open(open);
        gateway.requireKnownPrincipal();
        String principal = Principal.current().orElse("");
        ByteString secret = gateway.secrets().newSecret();
        LogCommand.Builder cmd = LogCommand.newBuilder()
                .setOpenSession(OpenSession.newBuilder()
                        .setTtlMs(open.getTtlMs())
                        .setClientName(open.getClientName())
                        .setSecretHash(SessionSecrets.hash(secret))
                        .setPrincipal(principal));
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = log.submit(cmd).whenComplete((reply, error) -> {
            if (error != null) {
                // The open may have committed all the same: the session it made must not outlive
                // this answer, which tells the client it has none.
                gateway.abandonOpen(cmd.getOpenSession().getSecretHash(), Gateway.ABANDON_ATTEMPTS);
                fail(Status.UNAVAILABLE.withDescription(error.getMessage()));
            } else if (reply.hasOpened()) {
                Opened opened = reply.getOpened();
                bind(opened.getSessionId(), opened.getTtlMs(), 1, open.getDisconnectGraceMs(), secret);
            } else if (reply.getDone().getCode() == Code.CODE_DENIED) {
                // The principal was revoked, by a node whose ACL is newer than this one's or
                // after this node's check: the state machine's word is the last.
                fail(Status.PERMISSION_DENIED.withDescription(reply.getDone().getMessage()));
            } else {
                fail(Status.INVALID_ARGUMENT.withDescription(reply.getDone().getMessage()));
            }
        });
    }

    /** Resuming renews the session and makes this stream its current attachment. */
    private void resume(AttachRequest.Resume resume) {
        requireUnbound();
        validator.resume(resume);
        gateway.requireKnownPrincipal();
        long id = resume.getSessionId();
        // The principal goes with the resume: the state machine refuses a revoked one, whatever
        // this node's ACL says.
        LogCommand.Builder cmd = Gateway.withSecret(
                LogCommand.newBuilder()
                        .setResumeSession(ResumeSession.newBuilder()
                                .setSessionId(id)
                                .setExpectedAttachment(resume.getExpectedAttachment()))
                        .setPrincipal(Principal.current().orElse("")),
                id,
                resume.getSessionSecret());
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = log.submit(cmd).whenComplete((reply, error) -> {
            if (error != null) {
                fail(Status.UNAVAILABLE.withDescription(error.getMessage()));
            } else if (reply.hasResumed() && reply.getResumed().getSuperseded()) {
                send(AttachResponse.newBuilder()
                        .setSuperseded(AttachResponse.Superseded.newBuilder()
                                .setAttachment(reply.getResumed().getAttachment()))
                        .build());
                finish(null);
            } else if (reply.hasResumed()) {
                gateway.listener().sessionResumed();
                Resumed r = reply.getResumed();
                bind(id, r.getTtlMs(), r.getAttachment(), resume.getDisconnectGraceMs(), ByteString.EMPTY);
            } else if (reply.getDone().getCode() == Code.CODE_DENIED) {
                // Not an end: the session is another client's, and stays as it was.
                fail(Status.PERMISSION_DENIED.withDescription(reply.getDone().getMessage()));
            } else {
                end(TenureEnd.TENURE_END_EXPIRED, "session " + id + " no longer exists");
            }
        });
    }

    private void keepAlive(long seq) {
        long id = boundSession();
        if (gateway.mutation() == Mutation.ACK_BEFORE_COMMIT) {
            ack(seq); // the broken variant: an ack that no committed renewal stands behind
        }
        renewSession(id, seq, SESSION_RENEW_ATTEMPTS);
    }

    /**
     * Renews the session and acks {@code seq} once committed. A leader change fails session
     * renewals in flight; the renewal is sent again at once (to the new leader) instead of waiting
     * for the client's next keepalive a third of a TTL later, which in a slow election can cost a
     * live holder its lease. Acking an old seq late is safe: the client's horizon counts from that seq's send
     * time, and the server's deadline from the later commit.
     */
    private void renewSession(long id, long seq, int attemptsLeft) {
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = log.renewSession(id).whenComplete((alive, error) -> {
            if (error != null) {
                if (attemptsLeft > 1 && isBound(id)) {
                    renewSession(id, seq, attemptsLeft - 1);
                }
                // Otherwise no ack: the client's horizon does not move, which is the safe outcome.
                return;
            }
            if (!alive) {
                end(TenureEnd.TENURE_END_EXPIRED, "session " + id + " expired");
            } else if (gateway.mutation() != Mutation.ACK_BEFORE_COMMIT) {
                ack(seq);
            }
        });
    }

    /**
     * Answered here, not through the log: an Echoed proves only that this stream still carries
     * the session, which is the stream's to know. It goes under the stream lock like an ack, so
     * none leaves once the stream is marked gone and the grace has started.
     */
    private void echo(long seq) {
        boundSession();
        sendWhileBound(AttachResponse.newBuilder()
                .setEchoed(AttachResponse.Echoed.newBuilder().setSeq(seq))
                .build());
    }

    private void ack(long seq) {
        sendWhileBound(AttachResponse.newBuilder()
                .setAck(AttachResponse.KeepAliveAck.newBuilder().setSeq(seq))
                .build());
    }

    /** Bound to {@code id} and not seen to end: what an answer to one of its calls may say. */
    boolean carries(long id) {
        return isBound(id);
    }

    private boolean isBound(long id) {
        synchronized (lock) {
            return sessionId == id && !clientGone && !responseDone;
        }
    }

    /**
     * Ends the session as the client says: RELEASED, or EXPIRED when it gave up at its own horizon
     * (it may have stopped mid-work; recording that as a clean release would mislead the next
     * holder). Any other value is taken as RELEASED, which older clients send by leaving it unset.
     */
    private void close(TenureEnd requested) {
        long id = boundSession();
        TenureEnd end = requested == TenureEnd.TENURE_END_EXPIRED
                ? TenureEnd.TENURE_END_EXPIRED
                : TenureEnd.TENURE_END_RELEASED;
        synchronized (lock) {
            closeRequested = true;
        }
        LogCommand.Builder cmd = LogCommand.newBuilder()
                .setCloseSession(CloseSession.newBuilder().setSessionId(id).setEnd(end));
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = log.submit(cmd).whenComplete((Reply reply, Throwable error) -> {
            if (error != null) {
                synchronized (lock) {
                    closeRequested = false;
                }
                fail(Status.UNAVAILABLE.withDescription(error.getMessage()));
            } else {
                end(end, "session closed");
            }
        });
    }

    /** The client's side of the stream ended. Without a Close first, that means its process is gone. */
    @Override
    public void onError(Throwable t) {
        disconnected();
    }

    @Override
    public void onCompleted() {
        disconnected();
        finish(null);
    }

    private void disconnected() {
        long id;
        long carried;
        long grace;
        synchronized (lock) {
            clientGone = true;
            id = closeRequested ? 0 : sessionId;
            carried = attachment;
            grace = graceMs;
        }
        // Only the stream the session is bound to here may end it (a client that resumed on a
        // new stream of this node keeps it), and only the attachment it carried (see the class
        // comment for a resume on another node).
        if (id != 0 && registry.unbind(id, this)) {
            gateway.listener().sessionReset();
            endAfterGrace(id, carried, grace);
        }
    }

    private void endAfterGrace(long id, long carried, long grace) {
        gateway.later(gateway.mutation() == Mutation.GRACE_NOT_KEPT ? 0 : grace, () -> {
            // Sent once: if it is lost, the session ends at its TTL instead.
            var unused = log.submit(LogCommand.newBuilder()
                    .setCloseSession(CloseSession.newBuilder()
                            .setSessionId(id)
                            .setEnd(TenureEnd.TENURE_END_DISCONNECTED)
                            .setAttachment(carried)));
        });
    }

    /** {@code secret}: given to the client with the Opened of an Open; empty for a Resume. */
    private void bind(long id, long ttlMs, long carried, long grace, ByteString secret) {
        synchronized (lock) {
            if (clientGone) {
                // The client vanished while its session was being opened or resumed. A resumed
                // session's client may still trust its leases for the grace: end it after that.
                endAfterGrace(id, carried, grace);
                return;
            }
            sessionId = id;
            attachment = carried;
            graceMs = grace;
            // Bound and answered under the lock, so disconnected() sees either neither or both.
            registry.bind(id, this);
            sendLocked(AttachResponse.newBuilder()
                    .setOpened(AttachResponse.Opened.newBuilder()
                            .setSessionId(id)
                            .setTtlMs(ttlMs)
                            .setDisconnectGraceMs(grace)
                            .setEchoes(true)
                            .setAttachment(carried)
                            .setSessionSecret(secret))
                    .build());
        }
    }

    /** Called by the registry when the state machine reports a lease of this session ended. */
    void leaseEnded(AttachResponse.LeaseEnded ended) {
        send(AttachResponse.newBuilder().setLeaseEnded(ended).build());
    }

    /** The session ended (expired, disconnected elsewhere, closed): tell the client and complete. */
    void end(TenureEnd end, String message) {
        long id;
        synchronized (lock) {
            id = sessionId;
        }
        if (id != 0) {
            registry.unbind(id, this);
        }
        send(AttachResponse.newBuilder()
                .setSessionEnded(
                        AttachResponse.SessionEnded.newBuilder().setEnd(end).setMessage(message))
                .build());
        finish(null);
    }

    private void send(AttachResponse response) {
        synchronized (lock) {
            sendLocked(response);
        }
    }

    /** Sends an answer that proves the session to the client only while this stream carries it. */
    private void sendWhileBound(AttachResponse response) {
        synchronized (lock) {
            if (!clientGone) {
                sendLocked(response);
            }
        }
    }

    private void sendLocked(AttachResponse response) {
        if (responseDone) {
            return;
        }
        try {
            out.onNext(response);
        } catch (RuntimeException e) {
            // The call is already gone (cancelled by the client); nothing to tell.
        }
    }

    private void fail(Status status) {
        finish(status);
    }

    private void finish(@Nullable Status status) {
        synchronized (lock) {
            if (responseDone) {
                return;
            }
            responseDone = true;
            try {
                if (status == null) {
                    out.onCompleted();
                } else {
                    out.onError(status.asRuntimeException());
                }
            } catch (RuntimeException e) {
                // Already cancelled by the client.
            }
        }
    }

    private void requireUnbound() {
        synchronized (lock) {
            if (sessionId != 0) {
                throw Status.FAILED_PRECONDITION
                        .withDescription("this stream already carries session " + sessionId)
                        .asRuntimeException();
            }
        }
    }

    private long boundSession() {
        synchronized (lock) {
            if (sessionId == 0) {
                throw Status.FAILED_PRECONDITION
                        .withDescription("open or resume a session first")
                        .asRuntimeException();
            }
            return sessionId;
        }
    }
}
