package dev.tenure.client;

import dev.tenure.client.internal.ClientAccess;
import dev.tenure.client.internal.Endpoints;
import dev.tenure.client.spi.ClientTls;
import dev.tenure.client.spi.TimeSource;
import dev.tenure.client.spi.Transport;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The entry point: a connection to one Tenure cluster through any of its nodes. Immutable and
 * thread-safe; build it once with {@link #builder()} and share it.
 *
 * <pre>{@code
 * try (TenureClient client = TenureClient.builder().endpoints("n1:7100,n2:7100").build();
 *      Session session = client.openSession();
 *      Lease lease = session.acquire("orders", Duration.ofSeconds(5))) {
 *   session.kv().put("orders/next", bytes, lease.lock(), lease.fence(Duration.ofSeconds(1)));
 * }
 * }</pre>
 */
public final class TenureClient implements AutoCloseable {
    static {
        ClientAccess.register(new ClientAccess.Bridge() {
            @Override
            public void channelFactory(Builder builder, Function<String, ManagedChannel> factory) {
                builder.channelFactory(factory);
            }

            @Override
            public void unaryCalls(Builder builder, boolean unary) {
                builder.unaryCalls(unary);
            }

            @Override
            public void timeSource(Builder builder, TimeSource time) {
                builder.timeSource(time);
            }

            @Override
            public NettyChannelBuilder configure(
                    NettyChannelBuilder builder, @Nullable SslContext context, boolean presentsCertificate) {
                return context == null
                        ? Builder.plaintext(builder)
                        : Builder.overTls(builder, context, presentsCertificate);
            }

            @Override
            public void tls(Builder builder, SslContext context, boolean presentsCertificate) {
                builder.tls(context, presentsCertificate);
            }

            @Override
            public long horizonNanos(Lease lease) {
                return lease.horizonNanos();
            }
        });
    }

    private final ClientContext ctx;
    private final Kv kv;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TenureClient(ClientContext ctx) {
        this.ctx = ctx;
        this.kv = new Kv(ctx, new Kv.Writer() {
            @Override
            public Caller caller() {
                return Caller.NONE;
            }

            @Override
            public long nextRequestId() {
                return 0;
            }

            @Override
            public Writes.Failure failure() {
                return Outcomes::unexpected;
            }
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    public Session openSession() {
        return Blocking.join(openSessionAsync());
    }

    /**
     * Opens a session: completes once a node confirms it is committed, or fails with
     * {@link UnavailableException} after the request timeout.
     */
    public CompletableFuture<Session> openSessionAsync() {
        if (closed.get()) {
            throw new IllegalStateException("client is closed");
        }
        Session session = new Session(ctx);
        ctx.sessions.add(session);
        CompletableFuture<Session> opened = session.open();
        CompletableFuture<?> unused = opened.whenComplete((s, error) -> {
            if (error != null) {
                ctx.sessions.remove(session);
                session.close(); // a caller that gave up (cancelled) must not leave it running
            }
        });
        return opened;
    }

    /** Holder, waiters and recent history of {@code lock}, read through the log. */
    public LockStatus status(String lock) {
        return Reads.status(ctx, Objects.requireNonNull(lock, "lock"));
    }

    /**
     * Every lock whose name starts with {@code prefix} (empty: every lock) that is held, waited for
     * or in its lock delay, in name order, fetched lazily a page at a time (the node's default page
     * size) as the stream is consumed. Each page is a linearizable read, but the listing is not a
     * snapshot: a lock that exists throughout appears exactly once, and one taken or freed while
     * the stream runs may or may not. Needs {@code read} on every name under the prefix. Failures
     * are thrown from the stream's terminal operation as {@link TenureException}.
     */
    public Stream<ListedLock> listLocks(String prefix) {
        return Reads.listAll(ctx, Objects.requireNonNull(prefix, "prefix"), 0);
    }

    /**
     * As {@link #listLocks(String)}, with {@code pageSize} locks per page (1 to the node's
     * listPageMax, 1,000 by default; 0: the node's default).
     */
    public Stream<ListedLock> listLocks(String prefix, int pageSize) {
        return Reads.listAll(ctx, Objects.requireNonNull(prefix, "prefix"), pageSize);
    }

    /**
     * One page of the listing: at most {@code limit} locks (0: the node's default) whose names start
     * with {@code prefix} and come after {@code after} (empty: from the first), in name order. Ask
     * for the next page after {@link ListedLock.Page#nextAfter} while {@link ListedLock.Page#more}.
     */
    public ListedLock.Page listLocks(String prefix, String after, int limit) {
        return Reads.listLocks(
                ctx, Objects.requireNonNull(prefix, "prefix"), Objects.requireNonNull(after, "after"), limit);
    }

    /**
     * The node's status, read through the log. It also asks every replica for a digest of its
     * whole state at this read; replicas take at most one per 5 s of cluster time, so the digest
     * reported may be from an earlier read ({@link ServerStatus#replicaDigestPosition()}).
     */
    public ServerStatus serverStatus() {
        return Reads.serverStatus(ctx);
    }

    /**
     * Follows {@code request}'s names: {@code listener} hears their current state (unless the
     * request resumes from a revision), then every change, in revision order, each once, across
     * broken connections and node failures, until the watch is closed or ends for good ({@link
     * WatchListener#onEnded}). Served by a node's own replica: sequentially consistent, not
     * linearizable (a node may show a change later than another). Needs {@code read} on the name,
     * or on every name under the prefix.
     */
    public Watch watch(WatchRequest request, WatchListener listener) {
        return new Watch(ctx, Objects.requireNonNull(request, "request"), Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Follows the leader of {@code election}: {@code listener} hears who leads now, then one
     * {@link LeaderView} per new leader, per leader gone and per new value proclaimed, in revision
     * order. It never skips a term, however short: every grant of the election is reported, in
     * order, then what follows it (see {@link ObserveListener#onLeader}). Built on a {@link #watch}
     * of the election's name, with the same resumption across broken connections and node failures
     * and the same consistency (a node's own replica). It ends with {@link
     * TenureException.Code#REVISION_COMPACTED} rather than resume across changes no longer kept,
     * where a term could pass unseen. Needs {@code read} on the name.
     */
    public Observation observe(String election, ObserveListener listener) {
        return observe(WatchRequest.name(election), listener);
    }

    /**
     * As {@link #observe(String, ObserveListener)}, from the changes after {@code revision} (one an
     * earlier observation reported) instead of the current state: the first view comes with the
     * first change of the leader after it.
     */
    public Observation observe(String election, long revision, ObserveListener listener) {
        return observe(WatchRequest.name(election).fromRevision(revision), listener);
    }

    private Observation observe(WatchRequest request, ObserveListener listener) {
        Objects.requireNonNull(listener, "listener");
        LeaderDerivation derivation = new LeaderDerivation(request.nameOrPrefix());
        return new Observation(watch(request, new WatchListener() {
            @Override
            public void onEvent(WatchEvent event) {
                LeaderView view = derivation.onEvent(event);
                if (view != null) {
                    listener.onLeader(view);
                }
            }

            @Override
            public void onSynced(long revision) {
                LeaderView view = derivation.onSynced(revision);
                if (view != null) {
                    listener.onLeader(view);
                }
            }

            @Override
            public void onEnded(TenureException cause) {
                listener.onEnded(cause);
            }
        }));
    }

    /** The fenced key-value store, written without a session; see {@link Kv}. */
    public Kv kv() {
        return kv;
    }

    /**
     * Stores {@code value} as {@code lock}'s checkpoint without a session: accepted only while
     * {@code token} is the lock's current grant, else {@link StaleTokenException} and nothing
     * changes. For a process that holds a token but not the session (a command under
     * {@code tenure run}); with a {@link Lease}, use {@link Lease#checkpoint(byte[])}.
     */
    public void checkpoint(String lock, long token, byte[] value) {
        Writes.checkpoint(ctx, Caller.NONE, 0, lock, token, value, Outcomes::unexpected);
    }

    /** Closes every open session (releasing their leases), then the channels. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<Session> open = new ArrayList<>(ctx.sessions);
        open.forEach(Session::beginClose); // all at once: each may wait briefly for its answer
        for (Session s : open) {
            try {
                s.awaitClosed();
            } catch (TenureException e) {
                // Closing the channels below ends whatever is left; the server expires the rest.
            }
        }
        ctx.endpoints.close();
    }

    /** Builds a {@link TenureClient}; every setting has a default except the endpoints. */
    public static final class Builder {
        private List<String> endpoints = List.of();
        private Duration sessionTtl = Duration.ofSeconds(10);
        /** Null: the default, 900 ms or the TTL if shorter. */
        private @Nullable Duration disconnectGrace;

        private @Nullable Duration driftMargin;
        private Duration requestTimeout = Duration.ofSeconds(5);
        private @Nullable String clientName;
        private TimeSource timeSource = TimeSource.system();
        private TenureListener listener = new TenureListener() {};
        private @Nullable Function<String, ManagedChannel> channelFactory; // null: Netty, plaintext or with tls
        private @Nullable SslContext tls;
        private boolean presentsCertificate;
        private boolean carryCalls = true;

        private Builder() {}

        /** "host:port,host:port": any node's gateway serves any request. */
        public Builder endpoints(String csv) {
            this.endpoints = Endpoints.parse(Objects.requireNonNull(csv, "endpoints"));
            return this;
        }

        public Builder endpoints(List<String> endpoints) {
            this.endpoints = endpoints.stream()
                    .map(String::trim)
                    .map(Endpoints::validate)
                    .toList();
            return this;
        }

        /** How long the server keeps a session that stops renewing. Default 10 s. */
        public Builder sessionTtl(Duration ttl) {
            this.sessionTtl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        /**
         * How long the server keeps a session whose connection closed, waiting for this client to
         * resume it on a new one. Default 900 ms (the TTL, if shorter). Leases count as valid only
         * up to the grace (less the drift margin) after the send time of the last request the
         * session's stream answered: an echo every grace/8, answered by the node at once without
         * the log, keeps that bound ahead, so a silent or reset connection makes leases invalid
         * (see {@link Lease#invalidated()}) before the node can end the session, and is replaced
         * and resumed within a third of the grace. A dead holder's locks pass on after the grace;
         * {@code fence} can promise at most the grace. 0 is the unsafe opt-in: a closed connection
         * ends the session at once, the fastest handover, but a connection reset by the network
         * (the process alive) then ends the session while this client still counts its leases
         * valid until their horizon (GUARANTEES.md, section 1). Otherwise at least 100 ms, at most
         * the TTL.
         */
        public Builder disconnectGrace(Duration grace) {
            this.disconnectGrace = Objects.requireNonNull(grace, "grace");
            return this;
        }

        /**
         * How much sooner than the server the client gives its leases up, to cover clock-rate drift
         * between client and server over one TTL. Default max(TTL/20, 20 ms).
         */
        public Builder driftMargin(Duration margin) {
            this.driftMargin = Objects.requireNonNull(margin, "margin");
            return this;
        }

        /** Total time one request keeps retrying across endpoints. Default 5 s. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Shown in status output. Default "java pid@host". */
        public Builder clientName(String name) {
            this.clientName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** See {@code dev.tenure.client.spi.Transport#timeSource}: the SPI, not the API. */
        Builder timeSource(TimeSource time) {
            this.timeSource = Objects.requireNonNull(time, "time");
            return this;
        }

        public Builder listener(TenureListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** See {@code dev.tenure.client.spi.Transport#channelFactory}: the SPI, not the API. */
        Builder channelFactory(Function<String, ManagedChannel> factory) {
            this.channelFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * TLS to the nodes, from PEM files: the CA that signed the nodes' certificates ({@code
         * null}: the JVM's default CAs), and this client's own certificate and key for nodes that
         * ask for one (mTLS; the certificate's CN is then the principal the node knows this client
         * as), or {@code null} for none. Keys are unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY},
         * what {@code openssl genpkey} and {@code openssl req -newkey} write). The files are read
         * here: one that is missing or unreadable fails at once with an {@link
         * IllegalArgumentException} naming it, not at the first connection.
         *
         * <p>The default channels trust the CA, check that each node's certificate names the host
         * it is reached at, and present this client's certificate if it has one. A handshake
         * refused for good (untrusted, expired, wrong host, no or a refused client certificate)
         * fails the request with {@link TenureException.Code#DENIED}, saying why. Default:
         * plaintext.
         */
        public Builder tls(@Nullable Path caPem, @Nullable Path certificatePem, @Nullable Path keyPem) {
            ClientTls read = ClientTls.of(caPem, certificatePem, keyPem);
            return Transport.tls(this, read);
        }

        /** See {@code dev.tenure.client.spi.Transport#tls}: the SPI, not the API. */
        Builder tls(SslContext context, boolean presentsCertificate) {
            this.tls = Objects.requireNonNull(context, "context");
            this.presentsCertificate = presentsCertificate;
            return this;
        }

        /** See {@code dev.tenure.client.spi.Transport#unaryCalls}: the SPI, not the API. */
        Builder unaryCalls(boolean unary) {
            this.carryCalls = !unary;
            return this;
        }

        public TenureClient build() {
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("endpoints are required");
            }
            long ttlNanos = positiveNanos("sessionTtl", sessionTtl);
            if (sessionTtl.toMillis() < 3) {
                throw new IllegalArgumentException("sessionTtl must be at least 3 ms: " + sessionTtl);
            }
            long marginNanos = -1;
            if (driftMargin != null) {
                marginNanos = driftMargin.isNegative() ? -2 : driftMargin.toNanos();
                if (marginNanos < 0 || marginNanos >= ttlNanos) {
                    throw new IllegalArgumentException("driftMargin must be in [0, sessionTtl): " + driftMargin);
                }
            }
            Duration grace = disconnectGrace != null
                    ? disconnectGrace
                    : Duration.ofNanos(Math.min(Liveness.DEFAULT_GRACE_NANOS, ttlNanos));
            if (!grace.isZero()
                    && ((grace.toMillis() < 100 && disconnectGrace != null) || grace.compareTo(sessionTtl) > 0)) {
                throw new IllegalArgumentException(
                        "disconnectGrace must be 0 or between 100 ms and sessionTtl (" + sessionTtl + "): " + grace);
            }
            long timeoutNanos = positiveNanos("requestTimeout", requestTimeout);
            String name = clientName != null ? clientName : defaultClientName();
            if (tls != null && channelFactory != null) {
                throw new IllegalArgumentException(
                        "tls applies to the default channels: a channelFactory of your own configures TLS itself"
                                + " (Transport.configure)");
            }
            Function<String, ManagedChannel> factory =
                    channelFactory != null ? channelFactory : tlsChannels(tls, presentsCertificate);
            Endpoints eps = new Endpoints(endpoints, factory, carryCalls, timeSource);
            eps.learnLeader();
            return new TenureClient(new ClientContext(
                    eps, timeSource, listener, ttlNanos, grace.toNanos(), marginNanos, timeoutNanos, name));
        }

        private static long positiveNanos(String what, Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            try {
                return d.toNanos();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(what + " is too long: " + d, e);
            }
        }

        /**
         * Plaintext Netty, answers read and handled on the channel's event loop ({@code
         * directExecutor}): a hand-off to gRPC's thread pool per answer cost about a sixth of
         * {@code parallel}'s throughput on two cores (BENCHMARKS.md, 'Answers on the event loop').
         * What may run an application's code is moved off the loop ({@link OffLoop}). No keepalive
         * pings: the server may count a ping rate it finds abusive as a reason to close the
         * connection. The sessions' echoes are what detect a silent one. A node that serves TLS
         * only fails its calls UNAUTHENTICATED, saying so (HandshakeFailures).
         */
        private static ManagedChannel plaintextChannel(String target) {
            return plaintext(NettyChannelBuilder.forTarget(target))
                    .directExecutor()
                    .build();
        }

        /** {@link #plaintextChannel}s, or with TLS if {@code context} is not null. */
        private static Function<String, ManagedChannel> tlsChannels(
                @Nullable SslContext context, boolean presentsCertificate) {
            if (context == null) {
                return Builder::plaintextChannel;
            }
            return target -> overTls(NettyChannelBuilder.forTarget(target), context, presentsCertificate)
                    .directExecutor()
                    .build();
        }

        /**
         * Makes {@code builder}'s channel speak TLS with {@code context}, checking that the node's
         * certificate names the host it was given as. A handshake that fails for a reason a retry
         * cannot cure (the node's certificate is untrusted, expired or for another host, the node
         * refused this client's certificate or asked for one) fails the call with UNAUTHENTICATED
         * and that reason in one line; the client then throws {@link TenureException.Code#DENIED}.
         */
        static NettyChannelBuilder overTls(
                NettyChannelBuilder builder, SslContext context, boolean presentsCertificate) {
            return builder.sslContext(context)
                    .useTransportSecurity()
                    .intercept(HandshakeFailures.overTls(presentsCertificate));
        }

        /**
         * Makes {@code builder}'s channel plaintext. A node that serves TLS only says so to a
         * plaintext client, and its calls then fail UNAUTHENTICATED with that in one line (the
         * client throws {@link TenureException.Code#DENIED}) instead of being retried until the
         * request timeout.
         */
        static NettyChannelBuilder plaintext(NettyChannelBuilder builder) {
            return builder.usePlaintext().intercept(HandshakeFailures.plaintext());
        }

        private static String defaultClientName() {
            String host = System.getenv("HOSTNAME");
            if (host == null || host.isBlank()) {
                try {
                    host = InetAddress.getLocalHost().getHostName();
                } catch (Exception e) {
                    host = "unknown-host";
                }
            }
            return "java " + ProcessHandle.current().pid() + "@" + host;
        }
    }
}
