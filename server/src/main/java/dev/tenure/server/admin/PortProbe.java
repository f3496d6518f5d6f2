package dev.tenure.server.admin;

import dev.tenure.server.security.ServerTls;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Proves that the node's client port serves a new connection, end to end: each probe connects to
 * the port as a client does (TCP, TLS with the node's own certificate, HTTP/2) and calls the
 * standard gRPC health service there, which answers without the log. The log has a probe of its
 * own; this one catches a port that takes no connection or answers none: an accept loop that
 * died, descriptors run out, event loops stuck, the connection limit reached.
 *
 * <p>Any answer the node gives counts, a refusal included: an ACL need not give the node's
 * certificate {@code monitor}, and a client CA need not have signed it (the node's handshake
 * alert is then its answer).
 */
public final class PortProbe {
    /** How long one probe waits for its answer. */
    static final Duration DEADLINE = Duration.ofSeconds(3);
    /**
     * How long the port may go unanswered before the node stops reporting "ok": several probes,
     * so that one lost to a scheduling hiccup on a busy machine does not take a node out of a
     * load balancer.
     */
    static final Duration STALE = Duration.ofSeconds(8);

    private final String host;
    private final int port;
    private final @Nullable ServerTls tls;
    private final Duration deadline;
    private final Duration stale;
    private volatile long answeredNanos = System.nanoTime();
    private volatile String lastFailure = "";
    /**
     * The node's client context for its own port, built on the first probe and kept: each build
     * turns the node's key into a PKCS#12 entry, a password-based key derivation of tens of
     * milliseconds of CPU, which a probe a second would pay for the node's whole life. Only the
     * probing thread touches it.
     */
    private @Nullable SslContext selfClient;

    /** @param tls the node's TLS, or null if it serves plaintext */
    public PortProbe(String host, int port, @Nullable ServerTls tls) {
        this(host, port, tls, DEADLINE, STALE);
    }

    public PortProbe(String host, int port, @Nullable ServerTls tls, Duration deadline, Duration stale) {
        this.host = host;
        this.port = port;
        this.tls = tls;
        this.deadline = deadline;
        this.stale = stale;
    }

    /** Starts one probe on a new connection; its outcome arrives later, on gRPC's threads. */
    public void probe() {
        ManagedChannel channel;
        try {
            NettyChannelBuilder b = NettyChannelBuilder.forAddress(host, port);
            channel = (tls == null ? b.usePlaintext() : b.sslContext(selfClient(tls))).build();
        } catch (RuntimeException e) {
            lastFailure = e.toString();
            return;
        }
        HealthGrpc.newStub(channel)
                .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .check(HealthCheckRequest.getDefaultInstance(), new StreamObserver<>() {
                    @Override
                    public void onNext(HealthCheckResponse value) {}

                    @Override
                    public void onError(Throwable t) {
                        if (answeredByTheNode(Status.fromThrowable(t))) {
                            answeredNanos = System.nanoTime();
                        } else {
                            lastFailure = describe(Status.fromThrowable(t));
                        }
                        channel.shutdownNow();
                    }

                    @Override
                    public void onCompleted() {
                        answeredNanos = System.nanoTime();
                        channel.shutdownNow();
                    }
                });
    }

    /** The context each probe's connection uses: one for the probe's life (see {@link #selfClient}). */
    SslContext selfClient(ServerTls tls) {
        SslContext context = selfClient;
        if (context == null) {
            context = tls.selfClient();
            selfClient = context;
        }
        return context;
    }

    /** Null while the port answers; otherwise why the node cannot be said to serve. */
    public @Nullable String problem() {
        long silentNanos = System.nanoTime() - answeredNanos;
        if (silentNanos <= stale.toNanos()) {
            return null;
        }
        return "the client port " + host + ":" + port + " answered no new connection for "
                + TimeUnit.NANOSECONDS.toSeconds(silentNanos) + " s"
                + (lastFailure.isEmpty() ? "" : " (last try: " + lastFailure + ")");
    }

    /**
     * Whether the node itself gave this status. UNAVAILABLE and DEADLINE_EXCEEDED are the
     * client's own verdicts on a connection that failed or an answer that never came, except for
     * a handshake the node ended with an alert: it read the hello and answered.
     */
    static boolean answeredByTheNode(Status status) {
        return switch (status.getCode()) {
            case UNAVAILABLE ->
                status.getCause() instanceof SSLException ssl
                        && ssl.getMessage() != null
                        && ssl.getMessage().contains("Received fatal alert");
            case DEADLINE_EXCEEDED, CANCELLED, UNKNOWN -> false;
            default -> true;
        };
    }

    private static String describe(Status status) {
        return status.getCode()
                + (status.getDescription() == null ? "" : " " + status.getDescription())
                + (status.getCause() == null ? "" : ": " + status.getCause());
    }
}
