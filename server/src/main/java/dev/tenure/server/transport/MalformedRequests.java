package dev.tenure.server.transport;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SecurityLevel;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a request message that does not parse (bytes that are not the method's protobuf, a
 * string that is not UTF-8, a message cut short) with INVALID_ARGUMENT, and logs it through a
 * {@link ThrottledLog}.
 *
 * <p>gRPC parses each request with the method's marshaller in its own code, after the transport
 * and before the call's listener, so no interceptor sees a failure: when the marshaller throws,
 * gRPC closes the call UNKNOWN "Application error processing RPC" whatever the exception
 * ({@code ServerImpl.internalClose}) and logs it SEVERE with its stack trace, once per request
 * ({@code SerializeReentrantCallsDirectExecutor}). So each method's request marshaller is wrapped
 * to return a failure as a value ({@link Parsed}), and a listener in front of the method's own
 * refuses the call when one arrives: the client is told INVALID_ARGUMENT, the method hears its
 * call cancelled (as when a client goes away, so a stream lets go of what it held), and whatever
 * the method still sends on that call is dropped.
 */
public final class MalformedRequests {
    private static final Logger LOG = LoggerFactory.getLogger(MalformedRequests.class);

    private MalformedRequests() {}

    /** {@code service}, with every method's malformed requests refused as above. */
    public static ServerServiceDefinition refused(ServerServiceDefinition service) {
        // One throttle for the whole service: a flood on one method is a flood on all of them.
        ThrottledLog log = new ThrottledLog(LOG);
        ServiceDescriptor strict = service.getServiceDescriptor();
        // The definition's builder checks its methods against its descriptor's, by identity:
        // both are made from the same lenient methods.
        ServiceDescriptor.Builder descriptor =
                ServiceDescriptor.newBuilder(strict.getName()).setSchemaDescriptor(strict.getSchemaDescriptor());
        List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
        for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
            ServerMethodDefinition<?, ?> lenient = lenient(method, log);
            methods.add(lenient);
            descriptor.addMethod(lenient.getMethodDescriptor());
        }
        ServerServiceDefinition.Builder refusing = ServerServiceDefinition.builder(descriptor.build());
        for (ServerMethodDefinition<?, ?> method : methods) {
            refusing.addMethod(method);
        }
        return refusing.build();
    }

    private static <Q, R> ServerMethodDefinition<Parsed<Q>, R> lenient(
            ServerMethodDefinition<Q, R> method, ThrottledLog log) {
        MethodDescriptor<Q, R> strict = method.getMethodDescriptor();
        MethodDescriptor<Parsed<Q>, R> lenient = strict.toBuilder(
                        new LenientMarshaller<>(strict.getRequestMarshaller()), strict.getResponseMarshaller())
                .build();
        ServerCallHandler<Q, R> handler = method.getServerCallHandler();
        return ServerMethodDefinition.create(lenient, (call, headers) -> {
            Unwrapped<Q, R> unwrapped = new Unwrapped<>(call, strict);
            return new Guard<>(unwrapped, handler.startCall(unwrapped, headers), log);
        });
    }

    /** A request as parsed: its message, or why it did not parse. */
    record Parsed<T>(@Nullable T message, @Nullable String failure) {}

    private record LenientMarshaller<T>(MethodDescriptor.Marshaller<T> strict)
            implements MethodDescriptor.Marshaller<Parsed<T>> {
        @Override
        public InputStream stream(Parsed<T> value) {
            return strict.stream(value.message());
        }

        @Override
        public Parsed<T> parse(InputStream stream) {
            try {
                return new Parsed<>(strict.parse(stream), null);
            } catch (RuntimeException e) {
                return new Parsed<>(null, deepestMessage(e));
            }
        }

        /** protobuf's own words ("Protocol message had invalid UTF-8."), under gRPC's wrapping. */
        private static String deepestMessage(Throwable e) {
            String message = e.toString();
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t.getMessage() != null) {
                    message = t.getMessage();
                }
            }
            return message;
        }
    }

    /** Hands parsed messages to the method's listener; refuses the call on the first that failed. */
    private static final class Guard<Q> extends ServerCall.Listener<Parsed<Q>> {
        private final Unwrapped<Q, ?> call;
        private final ServerCall.Listener<Q> method;
        private final ThrottledLog log;
        private boolean refused; // listener events come one at a time

        Guard(Unwrapped<Q, ?> call, ServerCall.Listener<Q> method, ThrottledLog log) {
            this.call = call;
            this.method = method;
            this.log = log;
        }

        @Override
        public void onMessage(Parsed<Q> parsed) {
            if (refused) {
                return;
            }
            if (parsed.failure() == null) {
                method.onMessage(parsed.message());
                return;
            }
            refused = true;
            String name = call.getMethodDescriptor().getFullMethodName();
            log.log(() -> "tenure: malformed request to " + name + " from "
                    + call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) + ": " + parsed.failure()
                    + " (answered INVALID_ARGUMENT)");
            call.refuse(Status.INVALID_ARGUMENT.withDescription(
                    "malformed " + call.getMethodDescriptor().getBareMethodName() + " request: " + parsed.failure()));
            method.onCancel();
        }

        @Override
        public void onHalfClose() {
            if (!refused) {
                method.onHalfClose();
            }
        }

        @Override
        public void onCancel() {
            if (!refused) {
                method.onCancel();
            }
        }

        @Override
        public void onComplete() {
            if (!refused) {
                method.onComplete();
            }
        }

        @Override
        public void onReady() {
            if (!refused) {
                method.onReady();
            }
        }
    }

    /**
     * The call as the method sees it: typed by its own descriptor, and closed for it once refused.
     * The method may answer from other threads (a reply that comes back from the log), so sends
     * and the refusal take turns on this object: nothing it sends after the refusal goes out.
     */
    private static final class Unwrapped<Q, R> extends ServerCall<Q, R> {
        private final ServerCall<Parsed<Q>, R> call;
        private final MethodDescriptor<Q, R> descriptor;
        private boolean refused; // guarded by this

        Unwrapped(ServerCall<Parsed<Q>, R> call, MethodDescriptor<Q, R> descriptor) {
            this.call = call;
            this.descriptor = descriptor;
        }

        synchronized void refuse(Status status) {
            if (!refused) {
                refused = true;
                call.close(status, new Metadata());
            }
        }

        @Override
        public synchronized void sendHeaders(Metadata headers) {
            if (!refused) {
                call.sendHeaders(headers);
            }
        }

        @Override
        public synchronized void sendMessage(R message) {
            if (!refused) {
                call.sendMessage(message);
            }
        }

        @Override
        public synchronized void close(Status status, Metadata trailers) {
            if (!refused) {
                refused = true; // closed either way: nothing more may go out
                call.close(status, trailers);
            }
        }

        @Override
        public void request(int messages) {
            call.request(messages);
        }

        @Override
        public boolean isCancelled() {
            return call.isCancelled();
        }

        @Override
        public boolean isReady() {
            return call.isReady();
        }

        @Override
        public void setMessageCompression(boolean enabled) {
            call.setMessageCompression(enabled);
        }

        @Override
        public void setCompression(String compressor) {
            call.setCompression(compressor);
        }

        @Override
        public void setOnReadyThreshold(int numBytes) {
            call.setOnReadyThreshold(numBytes);
        }

        @Override
        public Attributes getAttributes() {
            return call.getAttributes();
        }

        @Override
        public String getAuthority() {
            return call.getAuthority();
        }

        @Override
        public SecurityLevel getSecurityLevel() {
            return call.getSecurityLevel();
        }

        @Override
        public MethodDescriptor<Q, R> getMethodDescriptor() {
            return descriptor;
        }
    }
}
