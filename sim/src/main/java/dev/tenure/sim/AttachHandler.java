package dev.tenure.sim;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.core.Command;
import dev.tenure.core.Result;
import io.grpc.Status;

/**
 * A node's handling of one Attach stream (a call of its own, or one ref's sub-stream of an
 * AttachMany call: see {@link AttachOut}), after the server's AttachStream: Open and Resume bind
 * the stream to a session (a resume starts a new attachment), each KeepAlive is acknowledged only
 * once its renewal is committed (retried up to three times across a leader change) and only while
 * the stream lives, Close ends the session as the client asks, and a stream that ends without a
 * Close ends the attachment it carried as DISCONNECTED after the session's disconnect grace (at
 * once without one): a closed connection is taken as evidence that the client process is gone.
 */
final class AttachHandler {
    private static final int RENEW_ATTEMPTS = 3;

    private final Gateway gateway;
    private final AttachOut out;
    private long sessionId;
    private long attachment;
    private long graceMs;
    private boolean closeRequested;
    private boolean clientGone;

    AttachHandler(Gateway gateway, AttachOut out) {
        this.gateway = gateway;
        this.out = out;
    }

    void onNext(AttachRequest request) {
        switch (request.getKindCase()) {
            case OPEN -> open(request.getOpen());
            case RESUME -> resume(request.getResume());
            case KEEP_ALIVE -> keepAlive(request.getKeepAlive().getSeq());
            case CLOSE -> close(request.getClose().getEnd());
            default -> out.close(Status.INVALID_ARGUMENT.withDescription("empty attach message"));
        }
    }

    private void open(AttachRequest.Open open) {
        if (!unbound()) {
            return;
        }
        gateway.submit(new Command.OpenSession(open.getTtlMs(), open.getClientName()), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                if (result instanceof Result.SessionOpened o) {
                    bind(o.sessionId(), o.ttlMs(), 1, open.getDisconnectGraceMs());
                } else {
                    out.close(Status.INVALID_ARGUMENT.withDescription(Describe.result(result)));
                }
            }

            @Override
            public void failed(String why) {
                out.close(Status.UNAVAILABLE.withDescription(why));
            }
        });
    }

    /** Resuming renews the session and makes this stream its current attachment. */
    private void resume(AttachRequest.Resume resume) {
        if (!unbound()) {
            return;
        }
        long id = resume.getSessionId();
        gateway.submit(new Command.ResumeSession(id), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                if (result instanceof Result.SessionResumed r) {
                    bind(id, r.ttlMs(), r.attachment(), resume.getDisconnectGraceMs());
                } else {
                    end(TenureEnd.TENURE_END_EXPIRED, "session " + id + " no longer exists");
                }
            }

            @Override
            public void failed(String why) {
                out.close(Status.UNAVAILABLE.withDescription(why));
            }
        });
    }

    private void keepAlive(long seq) {
        if (sessionId == 0) {
            out.close(Status.FAILED_PRECONDITION.withDescription("open or resume a session first"));
            return;
        }
        if (gateway.mutation() == SimConfig.Mutation.ACK_BEFORE_COMMIT) {
            ack(seq); // the broken variant: an ack that no committed renewal stands behind
        }
        renew(sessionId, seq, RENEW_ATTEMPTS);
    }

    private void renew(long id, long seq, int attemptsLeft) {
        gateway.renew(id, new ClusterLink.RenewReply() {
            @Override
            public void alive(boolean alive) {
                if (!alive) {
                    end(TenureEnd.TENURE_END_EXPIRED, "session " + id + " expired");
                } else if (gateway.mutation() != SimConfig.Mutation.ACK_BEFORE_COMMIT) {
                    ack(seq);
                }
            }

            @Override
            public void failed(String why) {
                if (attemptsLeft > 1 && sessionId == id && !clientGone && !out.done()) {
                    renew(id, seq, attemptsLeft - 1);
                }
                // Otherwise no ack: the client's horizon does not move, which is the safe outcome.
            }
        });
    }

    private void ack(long seq) {
        if (clientGone) {
            return; // an answer after the stream ended would prove nothing the grace could honour
        }
        out.send(AttachResponse.newBuilder()
                .setAck(AttachResponse.KeepAliveAck.newBuilder().setSeq(seq))
                .build());
    }

    private void close(TenureEnd requested) {
        if (sessionId == 0) {
            out.close(Status.FAILED_PRECONDITION.withDescription("open or resume a session first"));
            return;
        }
        TenureEnd end = requested == TenureEnd.TENURE_END_EXPIRED
                ? TenureEnd.TENURE_END_EXPIRED
                : TenureEnd.TENURE_END_RELEASED;
        closeRequested = true;
        gateway.submit(new Command.CloseSession(sessionId, Wire.end(end)), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                end(end, "session closed");
            }

            @Override
            public void failed(String why) {
                closeRequested = false;
                out.close(Status.UNAVAILABLE.withDescription(why));
            }
        });
    }

    /** The client's side ended: cancelled, or half-closed, or its process is gone. */
    void clientEnded(boolean halfClosed) {
        clientGone = true;
        long id = closeRequested ? 0 : sessionId;
        // Only the stream the session is bound to here may end it, and only the attachment it
        // carried: a client that already resumed on a new stream keeps its session.
        if (id != 0 && gateway.unbind(id, this)) {
            endAfterGrace(id, attachment, graceMs);
        }
        if (halfClosed) {
            out.close(Status.OK);
        }
    }

    private void endAfterGrace(long id, long carried, long grace) {
        gateway.later(
                gateway.mutation() == SimConfig.Mutation.GRACE_NOT_KEPT ? 0 : grace,
                () -> gateway.submit(
                        new Command.CloseSession(id, dev.tenure.core.TenureEnd.DISCONNECTED, carried), Gateway.IGNORE));
    }

    private void bind(long id, long ttlMs, long carried, long grace) {
        if (clientGone) {
            // The client vanished while its session was being opened or resumed.
            endAfterGrace(id, carried, grace);
            return;
        }
        sessionId = id;
        attachment = carried;
        graceMs = grace;
        gateway.bind(id, this);
        out.send(AttachResponse.newBuilder()
                .setOpened(AttachResponse.Opened.newBuilder()
                        .setSessionId(id)
                        .setTtlMs(ttlMs)
                        .setDisconnectGraceMs(grace))
                .build());
    }

    void leaseEnded(String lock, long token, TenureEnd end) {
        out.send(AttachResponse.newBuilder()
                .setLeaseEnded(AttachResponse.LeaseEnded.newBuilder()
                        .setLock(lock)
                        .setToken(token)
                        .setEnd(end))
                .build());
    }

    /** The session ended (expired, disconnected elsewhere, closed): tell the client and complete. */
    void end(TenureEnd end, String message) {
        if (sessionId != 0) {
            gateway.unbind(sessionId, this);
        }
        out.send(AttachResponse.newBuilder()
                .setSessionEnded(
                        AttachResponse.SessionEnded.newBuilder().setEnd(end).setMessage(message))
                .build());
        out.close(Status.OK);
    }

    private boolean unbound() {
        if (sessionId != 0) {
            out.close(Status.FAILED_PRECONDITION.withDescription("this stream already carries session " + sessionId));
            return false;
        }
        return true;
    }
}
