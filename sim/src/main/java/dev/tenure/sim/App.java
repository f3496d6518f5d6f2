package dev.tenure.sim;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureException;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What one client process does, through the client's public API only and never blocking
 * (async acquire, release and close): open a session; acquire one lock at a time (not waiting,
 * waiting a while, or waiting forever, sometimes giving up); while holding it, make fenced writes
 * to the lock's key, each right after {@code lease.fence()}; release; and start over when the
 * session is lost. All its timers run on its own clock, so they pause and drift with it.
 *
 * <p>The application counts itself the holder of a lease from the grant until it decides to
 * release it, or the lease tells it it is lost; the checker asks the lease itself whether it is
 * still valid ({@link Lease#isValid()}: the client's horizon logic decides).
 */
final class App {
    private final World world;
    private final ClientProcess process;
    private final long ttlNanos;
    private @Nullable Session session; // null while none is open
    private @Nullable Lease held;
    /** The held lease is shared: granted so, or downgraded (counted so from the downgrade's send). */
    private boolean heldShared;

    private int writesLeft;
    private int writes;
    private @Nullable CompletableFuture<Lease> acquiring;
    private @Nullable CompletableFuture<Void> releasing;
    /** Locks this session gave up on without the server saying so: see {@link #gaveUpOn}. */
    private final TreeSet<String> gaveUpOn = new TreeSet<>();

    App(World world, ClientProcess process) {
        this.world = world;
        this.process = process;
        this.ttlNanos = world.config.ttlNanos();
    }

    /** The lease this application currently acts on, or null. */
    @Nullable
    Lease held() {
        return held;
    }

    /** Whether it acts on {@link #held()} as one of its shared holders. */
    boolean heldShared() {
        return heldShared;
    }

    void start() {
        openSession();
    }

    private void openSession() {
        trace("opens a session");
        // Each callback here handles its stage's outcome: the stages they return have nothing to add.
        CompletableFuture<?> unused = process.client().openSessionAsync().whenComplete((s, error) -> {
            if (error != null) {
                trace("open failed: " + Describe.error(error));
                later(backoff(), this::openSession);
                return;
            }
            session = s;
            trace("opened session s" + s.id());
            // A member's registration: it must be gone in the step that ends the session (Checker).
            CompletableFuture<?> unusedPut = s.putEphemeralAsync("member-" + process.name(), new byte[] {1})
                    .whenComplete((version, putError) -> trace("ephemeral put s" + s.id() + ": "
                            + (putError == null ? "version " + version : Describe.error(putError))));
            CompletableFuture<?> unusedLoss = s.lost().thenAccept(reason -> sessionLost(s, reason));
            later(think(), this::next);
        });
    }

    private void sessionLost(Session s, LossReason reason) {
        if (s != session) {
            return;
        }
        trace("session s" + s.id() + " LOST " + reason);
        session = null;
        held = null;
        releasing = null;
        gaveUpOn.clear();
        later(backoff(), this::openSession);
    }

    /** Stops using the session now; a new one opens once the server confirmed the close (or it timed out). */
    private void closeSession(String why) {
        Session s = Objects.requireNonNull(session, "next() closes only an open session");
        trace("closes session s" + s.id() + " " + why);
        session = null;
        held = null;
        releasing = null;
        gaveUpOn.clear();
        // The loss that follows the close opens the next session: neither stage has more to say.
        CompletableFuture<?> unused = s.lost().thenAccept(reason -> later(backoff(), this::openSession));
        unused = s.closeAsync();
    }

    private void next() {
        if (session == null || held != null || acquiring != null) {
            return;
        }
        if (releasing != null && !world.config.reacquireGivenUpLocks()) {
            return; // see gaveUpOn: an acquire must not overtake this session's release
        }
        if (world.random.nextDouble() < 0.02) {
            closeSession("at random");
            return;
        }
        AcquireOptions.Builder options = AcquireOptions.builder();
        double kind = world.random.nextDouble();
        boolean shared = false;
        String lock;
        if (kind < 0.2) {
            lock = World.SEMAPHORE;
            options.permits(world.config.permits());
        } else if (kind < 0.4) {
            lock = World.SHARED;
            shared = world.random.nextDouble() < 0.6;
            if (shared) {
                options.shared();
            }
        } else {
            lock = World.lockName(world.random.nextInt(world.config.locks()));
        }
        if (gaveUpOn.contains(lock)) {
            closeSession("rather than acquire " + lock + " again in it");
            return;
        }
        double w = world.random.nextDouble();
        boolean forever = w >= 0.6;
        if (w < 0.25) {
            options.wait(Duration.ZERO);
        } else if (!forever) {
            options.wait(Duration.ofNanos(Network.ms(10) + world.random.nextLong(2 * ttlNanos)));
        } else if (lock.startsWith("lock")) {
            // A wait without end on a plain lock is how an election's candidate campaigns: it carries
            // a value, so the one-holder-by-horizon property covers campaigns (no draw, so seeds
            // replay as before). A semaphore's or a shared lock's acquire takes no value.
            options.value(("candidate " + lock).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        // A semaphore's and a shared lock's leases take no policy: they end with a release or the session.
        if (lock.startsWith("lock") && world.random.nextDouble() < 0.2) {
            options.maxHold(Duration.ofMillis(world.config.ttlMs() * (1 + world.random.nextInt(3))));
        }
        Session s = session;
        CompletableFuture<Lease> f = s.acquireAsync(lock, options.build());
        acquiring = f;
        boolean grantedShared = shared;
        trace("acquires " + lock + (shared ? " shared" : "") + (forever ? " (waits forever)" : ""));
        if (forever && world.random.nextDouble() < 0.3) {
            later(ttlNanos + world.random.nextLong(3 * ttlNanos), () -> {
                if (acquiring == f && !f.isDone()) {
                    trace("gives up waiting for " + lock);
                    f.cancel(false);
                }
            });
        }
        CompletableFuture<?> unused = f.whenComplete((lease, error) -> {
            if (acquiring == f) {
                acquiring = null;
            }
            if (error != null) {
                trace("acquire " + lock + " failed: " + Describe.error(error));
                if (s == session
                        && !(Describe.cause(error) instanceof TenureException held
                                && held.code() == TenureException.Code.LOCK_HELD)) {
                    gaveUpOn(lock); // cancelled, or no answer: the server may still grant it
                }
                later(think(), this::next);
            } else if (s != session) {
                trace("granted " + lock + " t" + lease.token() + " to a session already given up");
            } else {
                granted(lease, grantedShared);
            }
        });
    }

    private void granted(Lease lease, boolean shared) {
        held = lease;
        heldShared = shared;
        writesLeft = 1 + world.random.nextInt(4);
        trace("holds " + lease.lock() + " t" + lease.token() + " ("
                + lease.remaining().toMillis() + "ms left)");
        CompletableFuture<?> unused = lease.lost().thenAccept(reason -> {
            if (held == lease) {
                trace("lease " + lease.lock() + " t" + lease.token() + " LOST " + reason);
                held = null;
                if (reason == LossReason.HORIZON_PASSED) {
                    gaveUpOn(lease.lock()); // its own (maxHold) horizon; the server ends it a little later
                }
                later(think(), this::next);
            }
        });
        later(work(), this::write);
    }

    /**
     * A known bug (docs/lab.md, "Simulation"): when a session acquires a lock whose grant the
     * server still holds for it, the answer is that same grant (a re-entrant acquire, same token),
     * but the client makes a fresh lease of it, while whatever is still under way for the earlier
     * grant acts on the new lease too, unseen by the client:
     *
     * <ul>
     *   <li>a release of the earlier lease that lands later ends it (no LeaseEnded is sent for a
     *       lease its own session released);
     *   <li>the withdrawal (CancelWait) of an earlier acquire the session gave up on releases it;
     *   <li>for a maxHold lease, the client counts its own horizon from the new request's send time,
     *       not from the original grant, so it outlives the server's lease.
     * </ul>
     *
     * Each time the client still counts the lease valid while the server has given the lock to
     * another session. Until that is fixed, the default workload never acquires a lock while its
     * release is under way, and opens a new session rather than acquire again a lock it gave up on
     * (an acquire cancelled or unanswered, a release unanswered, a lease past its own horizon);
     * {@link SimConfig#reacquireGivenUpLocks()} lets it, which makes the bug reachable.
     */
    private void gaveUpOn(String lock) {
        if (!world.config.reacquireGivenUpLocks()) {
            gaveUpOn.add(lock);
        }
    }

    /** One fenced write: the token comes from fence() right before it, as the docs ask. */
    private void write() {
        Lease lease = held;
        if (lease == null) {
            return;
        }
        if (!lease.lost().isDone() && !lease.isValid()) {
            // Not lost, but not to be trusted now (a reset stream past its grace bound): fence()
            // would wait for the resume, which this single-threaded world cannot; try again later.
            trace("not trusted now " + lease.lock() + " t" + lease.token());
            later(think(), this::write);
            return;
        }
        long token;
        try {
            token = lease.fence(Duration.ZERO);
        } catch (TenureException e) {
            trace("fence refused " + lease.lock() + " t" + lease.token() + ": " + Describe.error(e));
            held = null;
            later(think(), this::next);
            return;
        }
        if (!lease.lock().startsWith("lock")) {
            actOnSeveralHoldersLock(lease, token);
            return;
        }
        String value = process.name() + "/t" + token + "/w" + ++writes;
        KvPutRequest request = KvPutRequest.newBuilder()
                .setKey("k-" + lease.lock())
                .setValue(ByteString.copyFromUtf8(value))
                .setFence(Fence.newBuilder().setLock(lease.lock()).setToken(token))
                .build();
        int node = world.random.nextInt(world.config.nodes());
        trace("writes " + value + " via n" + node);
        TenureGrpc.newStub(process.channel(node)).kvPut(request, new StreamObserver<>() {
            @Override
            public void onNext(KvPutResponse r) {
                trace("write " + value + ": " + r.getCode());
            }

            @Override
            public void onError(Throwable t) {
                trace("write " + value + " failed: " + Describe.error(t));
            }

            @Override
            public void onCompleted() {}
        });
        if (--writesLeft > 0) {
            later(work(), this::write);
        } else {
            later(work(), this::release);
        }
    }

    /**
     * A semaphore's or a shared lock's lease is not fenced (the fenced KV checks a lock's one
     * current token): the holder acts on it by its horizon alone, which is what the checker's
     * semaphore and shared properties judge. An exclusive holder of the shared lock may downgrade,
     * and counts itself shared from the request on: the server may admit shared waiters as soon as
     * it applies, before the answer is back.
     */
    private void actOnSeveralHoldersLock(Lease lease, long token) {
        trace("acts on " + lease.lock() + " t" + token + (heldShared ? " shared" : ""));
        if (lease.lock().equals(World.SHARED) && !heldShared && world.random.nextDouble() < 0.3) {
            heldShared = true;
            trace("downgrades " + lease.lock() + " t" + token);
            CompletableFuture<?> unused = lease.downgradeAsync()
                    .whenComplete((v, error) -> trace("downgrade " + lease.lock() + " t" + token + ": "
                            + (error == null ? "ok" : Describe.error(error))));
        }
        if (--writesLeft > 0) {
            later(work(), this::write);
        } else {
            later(work(), this::release);
        }
    }

    private void release() {
        Lease lease = held;
        if (lease == null) {
            return;
        }
        held = null; // from here on the application no longer acts as the holder
        trace("releases " + lease.lock() + " t" + lease.token());
        Session s = session;
        CompletableFuture<Void> f = lease.releaseAsync();
        releasing = f;
        CompletableFuture<?> unused = f.whenComplete((v, error) -> {
            if (releasing == f) {
                releasing = null;
            }
            if (error != null) {
                trace("release " + lease.lock() + " t" + lease.token() + " failed: " + Describe.error(error));
                if (s == session
                        && !(Describe.cause(error) instanceof TenureException gone
                                && gone.code() == TenureException.Code.NOT_OWNER)) {
                    gaveUpOn(lease.lock()); // the release may still land, later
                }
            }
            later(think(), this::next);
        });
    }

    // ---- timing, on the process's own clock ----

    private void later(long nanos, Runnable action) {
        process.clock.schedule(action, nanos);
    }

    /** Mostly short, sometimes a TTL, rarely long enough to outlive the lease. */
    private long work() {
        double p = world.random.nextDouble();
        if (p < 0.7) {
            return world.random.nextLong(ttlNanos / 4 + 1);
        }
        return p < 0.95
                ? ttlNanos / 4 + world.random.nextLong(ttlNanos)
                : ttlNanos + world.random.nextLong(2 * ttlNanos);
    }

    private long think() {
        return world.random.nextLong(ttlNanos / 2 + 1);
    }

    private long backoff() {
        return world.random.nextLong(ttlNanos + 1);
    }

    private void trace(String what) {
        world.trace.add(process.name() + " " + what);
    }
}
