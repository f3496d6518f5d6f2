package dev.tenure.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import dev.tenure.core.Limits;
import dev.tenure.log.v1.Done;
import dev.tenure.log.v1.Event;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Queued;
import dev.tenure.log.v1.Reply;
import dev.tenure.log.v1.SessionEnded;
import dev.tenure.log.v1.WaitResolved;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The gateway's rules, one at a time, with the log and the clock in the test's hands: what it
 * submits, when, and what it answers only after which commit.
 */
class GatewayTest {
    private final ManualLog log = new ManualLog();
    private final ManualScheduler scheduler = new ManualScheduler();

    @Test
    void aKeepaliveIsAckedOnlyOnceItsRenewalIsCommitted() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        Recorder<AttachResponse> out = new Recorder<>();
        StreamObserver<AttachRequest> in = opened(gateway, out, 0);

        in.onNext(keepAlive(5));
        assertThat(out.messages).as("nothing before the commit").hasSize(1);
        log.renewals.remove(0).complete(true);
        assertThat(out.messages.get(1).getAck().getSeq()).isEqualTo(5);
    }

    @Test
    void anOpenAnsweredAsFailedIsAbandonedThroughTheLogUntilThatCommits() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        Recorder<AttachResponse> out = new Recorder<>();
        StreamObserver<AttachRequest> in = gateway.attach(out);
        in.onNext(open(0));
        Submission opening = log.submitted.remove(0);
        ByteString secretHash = opening.command().getOpenSession().getSecretHash();
        assertThat(secretHash.size()).isEqualTo(16);

        // No answer in time: the client hears UNAVAILABLE, though the open may have committed.
        opening.reply().completeExceptionally(new IllegalStateException("no answer from the cluster in time"));
        assertThat(Status.fromThrowable(out.error).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        Submission abandon = log.submitted.remove(0);
        assertThat(abandon.command().hasAbandonOpen()).isTrue();
        assertThat(abandon.command().getSecretHash()).isEqualTo(secretHash);

        // The abandon itself fails (no leader yet): it is sent again a second later.
        abandon.reply().completeExceptionally(new IllegalStateException("leader changed"));
        assertThat(log.submitted).isEmpty();
        assertThat(scheduler.delaysMs).containsExactly(Gateway.ABANDON_RETRY_MS);
        scheduler.runAll();
        Submission again = log.submitted.remove(0);
        assertThat(again.command().hasAbandonOpen()).isTrue();
        assertThat(again.command().getSecretHash()).isEqualTo(secretHash);
        again.reply()
                .complete(Reply.newBuilder().setDone(Done.getDefaultInstance()).build());
        scheduler.runAll();
        assertThat(log.submitted).as("committed: nothing more").isEmpty();
    }

    @Test
    void aKvWriteCarriesItsCallersPrincipalIntoTheLogForItsQuota() throws Exception {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        KvPutRequest put = KvPutRequest.newBuilder()
                .setKey("k")
                .setValue(ByteString.copyFromUtf8("v"))
                .build();
        Principal.bind(Context.current(), "orders-worker")
                .run(() -> gateway.kvPut(put, new ManualAnswer<KvPutResponse>()));
        gateway.kvPut(put, new ManualAnswer<KvPutResponse>());
        assertThat(log.submitted).extracting(s -> s.command().getPrincipal()).containsExactly("orders-worker", "");
        assertThat(WireMapping.toCommand(log.submitted.get(0).command()))
                .isInstanceOfSatisfying(
                        dev.tenure.core.Command.Put.class,
                        c -> assertThat(c.principal()).isEqualTo("orders-worker"));
    }

    @Test
    void aFencedKvWriteByAPrincipalThatMayNotReadItsLockIsRefusedBeforeTheLogWithoutAToken() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        // "scribe" may write the keys but not read the lock: a stale answer would show it the
        // lock's current token, which is all a fenced write needs.
        gateway.acl(Acl.of(Map.of(
                "scribe", List.of(new Acl.Grant("k", Set.of(Permission.WRITE))),
                "holder", List.of(new Acl.Grant("", Set.of(Permission.WRITE, Permission.READ))))));
        Fence fence = Fence.newBuilder().setLock("payments").setToken(41).build();
        KvPutRequest put = KvPutRequest.newBuilder()
                .setKey("k1")
                .setValue(ByteString.copyFromUtf8("v"))
                .setFence(fence)
                .build();
        KvDeleteRequest delete =
                KvDeleteRequest.newBuilder().setKey("k1").setFence(fence).build();
        ManualAnswer<KvPutResponse> refusedPut = new ManualAnswer<>();
        ManualAnswer<KvDeleteResponse> refusedDelete = new ManualAnswer<>();
        Principal.bind(Context.current(), "scribe").run(() -> {
            gateway.kvPut(put, refusedPut);
            gateway.kvDelete(delete, refusedDelete);
        });
        assertThat(refusedPut.failure).as("the put refused").isNotNull();
        assertThat(refusedDelete.failure).as("the delete refused").isNotNull();
        for (StatusRuntimeException e : List.of(refusedPut.failure, refusedDelete.failure)) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(e.getStatus().getDescription())
                    .isEqualTo("principal scribe may not read 'payments', the lock that fences this write")
                    .doesNotContainPattern("\\d");
        }
        assertThat(log.submitted).as("nothing reached the log").isEmpty();
        // Unfenced, the same writer is served; so is a fenced writer that may read the lock.
        Principal.bind(Context.current(), "scribe")
                .run(() -> gateway.kvPut(put.toBuilder().clearFence().build(), new ManualAnswer<>()));
        Principal.bind(Context.current(), "holder").run(() -> gateway.kvPut(put, new ManualAnswer<>()));
        assertThat(log.submitted).hasSize(2);
    }

    @Test
    void whileTheHeapIsNearlyFullKvWritesAndCheckpointsAreRefusedBeforeTheLogAndTheRestIsServed() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        String[] refusal = {"heap: nearly full"};
        gateway.memory(() -> refusal[0]);
        ManualAnswer<KvPutResponse> put = new ManualAnswer<>();
        gateway.kvPut(KvPutRequest.newBuilder().setKey("k").build(), put);
        ManualAnswer<WriteCheckpointResponse> checkpoint = new ManualAnswer<>();
        gateway.writeCheckpoint(
                WriteCheckpointRequest.newBuilder().setLock("x").setToken(1).build(), checkpoint);
        assertThat(List.of(put.failure.getStatus(), checkpoint.failure.getStatus()))
                .extracting(Status::getCode, Status::getDescription)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(Status.Code.RESOURCE_EXHAUSTED, "heap: nearly full"));
        assertThat(log.submitted).as("nothing reached the log").isEmpty();
        // Deletes, reads, acquires and releases go on; and writes again once the heap has room.
        gateway.kvDelete(KvDeleteRequest.newBuilder().setKey("k").build(), new ManualAnswer<>());
        gateway.kvGet(KvGetRequest.newBuilder().setKey("k").build(), new ManualAnswer<>());
        gateway.acquire(
                AcquireRequest.newBuilder()
                        .setSessionId(7)
                        .setRequestId(1)
                        .setLock("x")
                        .build(),
                new ManualAnswer<>());
        gateway.release(
                ReleaseRequest.newBuilder()
                        .setSessionId(7)
                        .setRequestId(2)
                        .setLock("x")
                        .setToken(1)
                        .build(),
                new ManualAnswer<>());
        refusal[0] = null;
        gateway.kvPut(KvPutRequest.newBuilder().setKey("k").build(), new ManualAnswer<>());
        assertThat(log.submitted)
                .extracting(sub -> sub.command().getCmdCase())
                .containsExactly(
                        LogCommand.CmdCase.KV_DELETE,
                        LogCommand.CmdCase.KV_GET,
                        LogCommand.CmdCase.ACQUIRE,
                        LogCommand.CmdCase.RELEASE,
                        LogCommand.CmdCase.KV_PUT);
    }

    @Test
    void anEchoIsAnsweredAtOnceWithoutTheLogAndNotOnceTheStreamIsGone() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        Recorder<AttachResponse> out = new Recorder<>();
        StreamObserver<AttachRequest> in = opened(gateway, out, 800);
        assertThat(out.messages.get(0).getOpened().getEchoes())
                .as("the Opened says echoes")
                .isTrue();
        int submitted = log.submitted.size();

        in.onNext(echo(3));
        assertThat(out.messages).hasSize(2);
        assertThat(out.messages.get(1).getEchoed().getSeq()).isEqualTo(3);
        assertThat(log.submitted).as("no log entry").hasSize(submitted);
        assertThat(log.renewals).as("no renewal").isEmpty();

        in.onError(Status.UNAVAILABLE.asRuntimeException());
        in.onNext(echo(4));
        assertThat(out.messages).as("no proof once the grace has started").hasSize(2);
    }

    @Test
    void anAttachManyEchoIsAnsweredAfterWhatItsStreamSentBeforeAndNotOnceTheStreamIsGone() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        Recorder<AttachEvents> out = new Recorder<>();
        StreamObserver<AttachFrames> in = gateway.attachMany(out);
        in.onNext(AttachFrames.newBuilder()
                .addFrames(AttachFrame.newBuilder().setRef(1).setRequest(open(800)))
                .build());
        commitOpen();
        scheduler.runAll();
        assertThat(out.messages.get(0).getEvents(0).getResponse().getOpened().getEchoes())
                .isTrue();

        in.onNext(AttachFrames.newBuilder().setEcho(3).build());
        scheduler.runAll();
        assertThat(out.messages).hasSize(2);
        assertThat(out.messages.get(1).getEventsList()).isEmpty();
        assertThat(out.messages.get(1).getEchoed()).isEqualTo(3);
        assertThat(log.submitted).as("no log entry").isEmpty();

        // The session ends on the node before the next echo is asked: its end comes first.
        gateway.onEvent(Event.newBuilder()
                .setSessionEnded(SessionEnded.newBuilder().setSessionId(7).setEnd(TenureEnd.TENURE_END_EXPIRED))
                .build());
        in.onNext(AttachFrames.newBuilder().setEcho(4).build());
        scheduler.runAll();
        assertThat(out.messages).hasSize(3);
        assertThat(out.messages.get(2).getEvents(0).getResponse().hasSessionEnded())
                .isTrue();
        assertThat(out.messages.get(2).getEchoed()).isEqualTo(4);

        in.onError(Status.UNAVAILABLE.asRuntimeException());
        in.onNext(AttachFrames.newBuilder().setEcho(5).build());
        scheduler.runAll();
        assertThat(out.messages).as("no answer once the stream is gone").hasSize(3);
    }

    @Test
    void aCallAnswerSaysTheSessionIsAttachedOnlyWhileItsStreamHere() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        StreamObserver<AttachRequest> in = opened(gateway, new Recorder<>(), 800);
        Recorder<CallResponse> answers = new Recorder<>();
        StreamObserver<CallRequest> calls = gateway.calls(answers);

        calls.onNext(release(1, 7));
        commitRelease();
        assertThat(answers.messages.get(0).getSessionAttached())
                .as("session 7's stream is here and live")
                .isTrue();

        calls.onNext(release(2, 8));
        commitRelease();
        assertThat(answers.messages.get(1).getSessionAttached())
                .as("no stream here carries session 8")
                .isFalse();

        calls.onNext(release(3, 7));
        in.onError(Status.UNAVAILABLE.asRuntimeException()); // the stream ends: the grace starts
        commitRelease();
        assertThat(answers.messages.get(2).getSessionAttached())
                .as("not once the stream is seen to end")
                .isFalse();
    }

    private static CallRequest release(long id, long sessionId) {
        return CallRequest.newBuilder()
                .setId(id)
                .setRelease(ReleaseRequest.newBuilder()
                        .setSessionId(sessionId)
                        .setRequestId(id)
                        .setLock("l")
                        .setToken(1))
                .build();
    }

    private void commitRelease() {
        Submission s = log.submitted.remove(log.submitted.size() - 1);
        assertThat(s.command.hasRelease()).isTrue();
        s.reply.complete(Reply.newBuilder()
                .setRelease(ReleaseResponse.newBuilder().setCode(Code.CODE_OK))
                .build());
    }

    @Test
    void anEchoBeforeTheSessionIsBoundFailsTheStream() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        Recorder<AttachResponse> out = new Recorder<>();
        StreamObserver<AttachRequest> in = gateway.attach(out);
        in.onNext(echo(1));
        assertThat(out.messages).isEmpty();
        assertThat(out.error).isNotNull();
    }

    @Test
    void theBrokenVariantAcksOnReceipt() {
        Gateway gateway = new Gateway(
                log,
                scheduler,
                Limits.defaults(),
                new Gateway.Listener() {},
                Mutation.ACK_BEFORE_COMMIT,
                new SplittableRandom(1));
        Recorder<AttachResponse> out = new Recorder<>();
        StreamObserver<AttachRequest> in = opened(gateway, out, 0);

        in.onNext(keepAlive(5));
        assertThat(out.messages).hasSize(2);
        assertThat(out.messages.get(1).getAck().getSeq()).isEqualTo(5);
    }

    @Test
    void aBrokenStreamEndsItsSessionOnlyAfterTheGraceAndNamesItsAttachment() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        StreamObserver<AttachRequest> in = opened(gateway, new Recorder<>(), 3_000);

        in.onError(Status.UNAVAILABLE.asRuntimeException());
        assertThat(log.submitted).as("not at once").isEmpty();
        assertThat(scheduler.delaysMs).containsExactly(3_000L);
        scheduler.runAll();
        LogCommand close = log.submitted.get(0).command;
        assertThat(close.getCloseSession().getSessionId()).isEqualTo(7);
        assertThat(close.getCloseSession().getEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
        assertThat(close.getCloseSession().getAttachment()).isEqualTo(1);
    }

    @Test
    void withoutAGraceTheSessionEndsAtOnce() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        StreamObserver<AttachRequest> in = opened(gateway, new Recorder<>(), 0);

        in.onError(Status.UNAVAILABLE.asRuntimeException());
        assertThat(log.submitted).hasSize(1);
        assertThat(scheduler.delaysMs).isEmpty();
    }

    @Test
    void theBrokenVariantIgnoresTheGrace() {
        Gateway gateway = new Gateway(
                log,
                scheduler,
                Limits.defaults(),
                new Gateway.Listener() {},
                Mutation.GRACE_NOT_KEPT,
                new SplittableRandom(1));
        StreamObserver<AttachRequest> in = opened(gateway, new Recorder<>(), 3_000);

        in.onError(Status.UNAVAILABLE.asRuntimeException());
        assertThat(log.submitted).hasSize(1);
    }

    @Test
    void aParkedAcquireWhoseCallEndsIsWithdrawnAMomentLaterNamingItsTry() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        ManualAnswer<AcquireResponse> answer = new ManualAnswer<>();
        gateway.acquire(
                AcquireRequest.newBuilder()
                        .setSessionId(7)
                        .setRequestId(2)
                        .setLock("a")
                        .setWaitMs(10_000)
                        .setAttempt(3)
                        .build(),
                answer);
        log.submitted
                .remove(0)
                .reply
                .complete(Reply.newBuilder()
                        .setQueued(Queued.newBuilder().setHolderToken(1))
                        .build());
        assertThat(answer.responses).as("queued: no answer yet").isEmpty();

        answer.cancel();
        assertThat(log.submitted).as("not at once").isEmpty();
        assertThat(scheduler.delaysMs).containsExactly(Gateway.WITHDRAW_DELAY_MS);
        scheduler.runAll();
        var withdrawal = log.submitted.get(0).command.getCancelWait();
        assertThat(withdrawal.getSessionId()).isEqualTo(7);
        assertThat(withdrawal.getRequestId()).isEqualTo(2);
        assertThat(withdrawal.getAttempt()).isEqualTo(3);
    }

    @Test
    void anEarlierTryReadLateNeverSupersedesALaterTryOfTheSameRequest() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        ManualAnswer<AcquireResponse> second = new ManualAnswer<>();
        ManualAnswer<AcquireResponse> first = new ManualAnswer<>();
        gateway.acquire(waitingTry(2), second);
        gateway.acquire(waitingTry(1), first); // from a connection its client gave up: read late
        assertThat(first.failure.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(second.failure)
                .as("the try its client waits on keeps its wait")
                .isNull();

        log.submitted.get(1).reply.complete(queued());
        log.submitted.get(0).reply.complete(queued());
        AcquireResponse granted =
                AcquireResponse.newBuilder().setCode(Code.CODE_OK).build();
        gateway.registry().onEvent(waitResolved(granted, 2)); // both tries applied: the log's latest is 2
        assertThat(second.responses).containsExactly(granted);
    }

    /**
     * The earlier try's call was cut (a reset) and its gateway withdraws it a moment later; the
     * client's next try is parked here but not yet applied. A grant of the earlier try's wait,
     * reported now, may be ended by that withdrawal before the next try reaches the log: the
     * next try must take its own command's reply, which is the request's outcome by then.
     */
    @Test
    void aLaterTryNotYetAppliedIsAnsweredByItsOwnReplyNotByTheEarlierTrysGrant() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        ManualAnswer<AcquireResponse> second = new ManualAnswer<>();
        gateway.acquire(waitingTry(2), second);
        AcquireResponse granted = AcquireResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setGrant(dev.tenure.api.v1.Grant.newBuilder().setLock("a").setToken(32))
                .build();
        gateway.registry().onEvent(waitResolved(granted, 0));
        gateway.registry().onEvent(waitResolved(granted, 1));
        assertThat(second.responses).as("not the earlier try's grant").isEmpty();
        assertThat(second.failure).isNull();

        AcquireResponse cancelled = AcquireResponse.newBuilder()
                .setCode(Code.CODE_CANCELLED)
                .setMessage("the grant of request 2 (token 32) to session 7 has already ended")
                .build();
        log.submitted
                .remove(0)
                .reply
                .complete(Reply.newBuilder().setAcquire(cancelled).build());
        assertThat(second.responses).containsExactly(cancelled);
    }

    @Test
    void aLaterTrySupersedesAnEarlierOne() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        ManualAnswer<AcquireResponse> first = new ManualAnswer<>();
        ManualAnswer<AcquireResponse> second = new ManualAnswer<>();
        gateway.acquire(waitingTry(1), first);
        gateway.acquire(waitingTry(2), second);
        assertThat(first.failure.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(second.failure).isNull();
    }

    private static AcquireRequest waitingTry(int attempt) {
        return AcquireRequest.newBuilder()
                .setSessionId(7)
                .setRequestId(2)
                .setLock("a")
                .setWaitMs(10_000)
                .setAttempt(attempt)
                .build();
    }

    /** The wait of {@link #waitingTry}'s request ended with {@code response}; the log's latest try was {@code attempt}. */
    private static Event waitResolved(AcquireResponse response, long attempt) {
        return Event.newBuilder()
                .setWaitResolved(WaitResolved.newBuilder()
                        .setSessionId(7)
                        .setRequestId(2)
                        .setResponse(response)
                        .setAttempt(attempt))
                .build();
    }

    private static Reply queued() {
        return Reply.newBuilder()
                .setQueued(Queued.newBuilder().setHolderToken(1))
                .build();
    }

    @Test
    void aRequestOfTheWrongShapeNeverReachesTheLog() {
        Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});
        ManualAnswer<AcquireResponse> answer = new ManualAnswer<>();
        gateway.acquire(
                AcquireRequest.newBuilder().setSessionId(7).setRequestId(1).build(), answer);
        assertThat(answer.failure.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(log.submitted).isEmpty();
    }

    // ---- helpers ----

    private static AttachRequest echo(long seq) {
        return AttachRequest.newBuilder()
                .setEcho(AttachRequest.Echo.newBuilder().setSeq(seq))
                .build();
    }

    private static AttachRequest open(long graceMs) {
        return AttachRequest.newBuilder()
                .setOpen(AttachRequest.Open.newBuilder()
                        .setTtlMs(10_000)
                        .setClientName("t")
                        .setDisconnectGraceMs(graceMs))
                .build();
    }

    /** Commits the Open submitted first: the log opens session 7. */
    private void commitOpen() {
        log.submitted
                .remove(0)
                .reply
                .complete(Reply.newBuilder()
                        .setOpened(AttachResponse.Opened.newBuilder()
                                .setSessionId(7)
                                .setTtlMs(10_000))
                        .build());
    }

    /** An Attach stream whose session 7 is open with {@code graceMs}; the Opened is out[0]. */
    private StreamObserver<AttachRequest> opened(Gateway gateway, Recorder<AttachResponse> out, long graceMs) {
        StreamObserver<AttachRequest> in = gateway.attach(out);
        in.onNext(open(graceMs));
        commitOpen();
        assertThat(out.messages.get(0).getOpened().getSessionId()).isEqualTo(7);
        return in;
    }

    private static AttachRequest keepAlive(long seq) {
        return AttachRequest.newBuilder()
                .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(seq))
                .build();
    }

    private record Submission(LogCommand command, CompletableFuture<Reply> reply) {}

    /** A log that commits only when the test says so. */
    private static final class ManualLog implements LogPort {
        final List<Submission> submitted = new ArrayList<>();
        final List<CompletableFuture<Boolean>> renewals = new ArrayList<>();

        @Override
        public CompletableFuture<Reply> submit(LogCommand.Builder command) {
            CompletableFuture<Reply> reply = new CompletableFuture<>();
            submitted.add(new Submission(command.build(), reply));
            return reply;
        }

        @Override
        public CompletableFuture<Boolean> renewSession(long sessionId) {
            CompletableFuture<Boolean> alive = new CompletableFuture<>();
            renewals.add(alive);
            return alive;
        }
    }

    /** A clock that moves only when the test runs what is due. */
    private static final class ManualScheduler implements Scheduler {
        final List<Long> delaysMs = new ArrayList<>();
        final List<Runnable> due = new ArrayList<>();

        @Override
        public void later(long delayMs, Runnable action) {
            delaysMs.add(delayMs);
            due.add(action);
        }

        @Override
        public void soon(Runnable action) {
            due.add(action);
        }

        void runAll() {
            List<Runnable> now = new ArrayList<>(due);
            due.clear();
            now.forEach(Runnable::run);
        }
    }

    private static final class Recorder<T> implements StreamObserver<T> {
        final List<T> messages = new ArrayList<>();
        Throwable error;

        @Override
        public void onNext(T value) {
            messages.add(value);
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {
            // No test asks whether a stream completed.
        }
    }

    private static final class ManualAnswer<T> implements Answer<T> {
        final List<T> responses = new ArrayList<>();
        StatusRuntimeException failure;
        private boolean cancelled;
        private Runnable onCancel;

        @Override
        public void ok(T response) {
            responses.add(response);
        }

        @Override
        public void fail(StatusRuntimeException error) {
            failure = error;
        }

        @Override
        public boolean cancelled() {
            return cancelled;
        }

        @Override
        public void onCancel(Runnable handler) {
            onCancel = handler;
        }

        void cancel() {
            cancelled = true;
            onCancel.run();
        }
    }
}
