package dev.tenure.sim;

import dev.tenure.api.v1.AttachResponse;
import io.grpc.Status;

/**
 * Where one {@link AttachHandler} writes: a plain Attach call ({@link ServerCall}), or one ref's
 * sub-stream of an AttachMany call ({@link AttachManyHandler}). The handler cannot tell which, as
 * on the server, so a session behaves the same on either rpc.
 */
interface AttachOut {
    /** One response; dropped once the stream ended or the client stopped listening. */
    void send(AttachResponse response);

    /** Ends the stream with {@code status} (OK completes it). */
    void close(Status status);

    /** Nothing more can be sent: the handler ended the stream, or the call it rides on ended. */
    boolean done();
}
