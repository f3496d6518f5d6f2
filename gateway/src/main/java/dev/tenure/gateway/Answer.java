package dev.tenure.gateway;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * Where the outcome of one call goes: a unary call's response, or a frame on a Calls stream
 * ({@link CallsStream}), or whatever a transport other than gRPC gives its callers. The gateway
 * serves a request the same way whichever carried it.
 */
public interface Answer<T> {

    /** Sends the response; throws if the call is gone (cancelled, its stream ended). */
    void ok(T response);

    /** Ends the call with the error's status. */
    void fail(StatusRuntimeException error);

    /** True once the client gave up on the call; nothing sent now reaches it. */
    boolean cancelled();

    /** Runs {@code handler} when the client gives up on the call before it is answered. */
    void onCancel(Runnable handler);

    /** A unary call's response observer. */
    static <T> Answer<T> unary(StreamObserver<T> responses) {
        ServerCallStreamObserver<T> call = (ServerCallStreamObserver<T>) responses;
        return new Answer<>() {
            @Override
            public void ok(T response) {
                call.onNext(response);
                call.onCompleted();
            }

            @Override
            public void fail(StatusRuntimeException error) {
                call.onError(error);
            }

            @Override
            public boolean cancelled() {
                return call.isCancelled();
            }

            @Override
            public void onCancel(Runnable handler) {
                call.setOnCancelHandler(handler);
            }
        };
    }
}
