package dev.tenure.server;

import com.google.protobuf.Message;
import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Calls any rpc of the Tenure service by its name in tenure.proto, with the method descriptor the
 * generated code registers, so a table of calls needs no code per rpc. A streaming rpc sends one
 * message and reads until the first answer or the stream's end.
 */
public final class AnyCall {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private AnyCall() {}

    /** What came back: the status the call ended with (OK if it answered), and the answers. */
    public record Outcome(Status status, List<Message> answers) {
        /**
         * The refusal this outcome carries: the call's own status, or, on a stream that carries
         * several calls or sessions (Calls, AttachMany), the status a frame failed with. OK: none.
         */
        public Status refusal() {
            if (!status.isOk()) {
                return status;
            }
            for (Message answer : answers) {
                if (answer instanceof CallResponse r && r.hasFailed()) {
                    return Status.fromCodeValue(r.getFailed().getCode())
                            .withDescription(r.getFailed().getMessage());
                }
                if (answer instanceof AttachEvents events) {
                    for (AttachEvent e : events.getEventsList()) {
                        if (e.hasFailed()) {
                            return Status.fromCodeValue(e.getFailed().getCode())
                                    .withDescription(e.getFailed().getMessage());
                        }
                    }
                }
            }
            return Status.OK;
        }
    }

    /** The method of the Tenure service that tenure.proto names {@code name} ("KvPut"). */
    @SuppressWarnings("unchecked")
    static MethodDescriptor<Message, Message> method(String name) {
        return TenureGrpc.getServiceDescriptor().getMethods().stream()
                .filter(m -> m.getBareMethodName().equals(name))
                .map(m -> (MethodDescriptor<Message, Message>) m)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("tenure.proto has no rpc " + name));
    }

    public static Outcome call(Channel channel, String name, Message request) throws InterruptedException {
        MethodDescriptor<Message, Message> method = method(name);
        CallOptions options =
                CallOptions.DEFAULT.withDeadlineAfter(TimeScale.scaled(DEADLINE).toMillis(), TimeUnit.MILLISECONDS);
        if (method.getType() == MethodDescriptor.MethodType.UNARY) {
            try {
                return new Outcome(
                        Status.OK, List.of(ClientCalls.blockingUnaryCall(channel, method, options, request)));
            } catch (StatusRuntimeException e) {
                return new Outcome(e.getStatus(), List.of());
            }
        }
        return stream(channel, method, options, request);
    }

    private static Outcome stream(
            Channel channel, MethodDescriptor<Message, Message> method, CallOptions options, Message request)
            throws InterruptedException {
        List<Message> answers = new CopyOnWriteArrayList<>();
        AtomicReference<Status> end = new AtomicReference<>();
        StreamObserver<Message> out =
                ClientCalls.asyncBidiStreamingCall(channel.newCall(method, options), new StreamObserver<>() {
                    @Override
                    public void onNext(Message value) {
                        answers.add(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        end.set(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        end.set(Status.OK);
                    }
                });
        out.onNext(request);
        if (method.getType() == MethodDescriptor.MethodType.SERVER_STREAMING) {
            // One request, then the half-close a server-streaming handler waits for.
            out.onCompleted();
        }
        Await.atMost(DEADLINE)
                .every(Duration.ofMillis(5))
                .until(
                        "an answer or the end of the " + method.getBareMethodName() + " stream",
                        () -> end.get() != null || !answers.isEmpty());
        Status status = end.get();
        if (status == null) {
            ((ClientCallStreamObserver<Message>) out).cancel("the test read its answer", null);
        }
        return new Outcome(status == null ? Status.OK : status, List.copyOf(answers));
    }
}
