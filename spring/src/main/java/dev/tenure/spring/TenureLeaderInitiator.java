package dev.tenure.spring;

import dev.tenure.client.Leadership;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Spring Integration leader election on a Tenure election ({@link Session#campaign}), in place of
 * {@code LockRegistryLeaderInitiator}: the candidate's role is the election's name, its id the
 * value the leader publishes. Candidates queue in FIFO order on the cluster, so there is no
 * polling: a resignation elects the next candidate in the same log entry.
 *
 * <p>The candidate's {@code onGranted} and {@code onRevoked}, then the {@code OnGrantedEvent} and
 * {@code OnRevokedEvent} (through the {@link LeaderEventPublisher}, by default the application's
 * event publisher), all run on the initiator's own thread, each with a {@link TenureLeaderContext}
 * that carries the leadership's token and fence.
 *
 * <ul>
 *   <li><b>Loss.</b> The moment the leadership stops being valid by the client's horizon (its
 *       session lost, in doubt past the disconnect grace's bound, or the lease revoked), the
 *       candidate is revoked: this is before the cluster can elect anyone else, so the old
 *       leader's {@code onRevoked} starts before the next leader's {@code onGranted}. A candidate
 *       blocked in {@code onGranted} is interrupted (as Spring's {@code Candidate} contract says).
 *       The initiator then closes that session and campaigns again on a new one after a back-off
 *       ({@link #setRetryDelay}).
 *   <li><b>Yield</b> ({@link TenureLeaderContext#yield()}): revoke, resign (the next candidate is
 *       elected at once), campaign again behind it.
 *   <li><b>{@link #stop()}</b>: revoke, resign, close the session; returns when done.
 * </ul>
 *
 * <p>The initiator holds one session of its own, opened when it starts; the caller keeps and
 * closes the {@link TenureClient}.
 */
public final class TenureLeaderInitiator implements SmartLifecycle, DisposableBean, ApplicationEventPublisherAware {
    private static final System.Logger LOG = System.getLogger(TenureLeaderInitiator.class.getName());
    /** How long {@link #stop()} waits for the revocation and resignation to finish. */
    private static final long STOP_WAIT_MS = 10_000;

    private final TenureClient client;
    private final Candidate candidate;
    private final String role;
    private final byte[] value;
    private final TenureLeaderContext notLeading;

    private volatile Duration retryDelayMin = Duration.ofMillis(200);
    private volatile Duration retryDelayMax = Duration.ofSeconds(5);
    private volatile @Nullable LeaderEventPublisher publisher;
    private volatile @Nullable ApplicationEventPublisher applicationEvents;
    private volatile boolean autoStartup = true;
    private volatile int phase = Integer.MAX_VALUE - 1000;
    private volatile TenureLeaderContext context;
    private @Nullable Campaign campaign; // guarded by this

    /**
     * An initiator for {@code candidate} on {@code client}'s cluster: its role names the election,
     * its id (UTF-8, at most electionValueBytesMax: 1 KiB by default) is the published value.
     */
    public TenureLeaderInitiator(TenureClient client, Candidate candidate) {
        this.client = Objects.requireNonNull(client, "client");
        this.candidate = Objects.requireNonNull(candidate, "candidate");
        this.role = Objects.requireNonNull(candidate.getRole(), "candidate's role");
        this.value = Objects.requireNonNull(candidate.getId(), "candidate's id").getBytes(StandardCharsets.UTF_8);
        this.notLeading = TenureLeaderContext.notLeading(role);
        this.context = notLeading;
    }

    /**
     * The wait before campaigning again after a loss or a failed campaign: {@code min} first,
     * doubled after each further failure up to {@code max}, back to {@code min} once elected.
     * Defaults 200 ms and 5 s.
     */
    public void setRetryDelay(Duration min, Duration max) {
        if (min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("retry delay needs 0 <= min <= max, was " + min + ", " + max);
        }
        this.retryDelayMin = min;
        this.retryDelayMax = max;
    }

    /** Where the leader events go; default: the application's event publisher. */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        this.applicationEvents = applicationEventPublisher;
    }

    /** The current leadership's context, or one that is not the leader between leaderships. */
    public TenureLeaderContext getContext() {
        return context;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /** Whether the context starts it; default true. */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** Its lifecycle phase; default {@code Integer.MAX_VALUE - 1000}, as Spring's own initiator. */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    /** Starts campaigning on a thread of its own. */
    @Override
    public synchronized void start() {
        if (campaign != null) {
            return;
        }
        ApplicationEventPublisher events = applicationEvents;
        if (publisher == null && events != null) {
            publisher = new DefaultLeaderEventPublisher(events);
        }
        Campaign started = new Campaign();
        campaign = started;
        started.thread.start();
    }

    /**
     * Stops campaigning: a leader is revoked, then resigns (the next candidate is elected at
     * once), and the session is closed. Returns once that is done (waiting at most 10 s for the
     * candidate's callbacks).
     */
    @Override
    public void stop() {
        Campaign stopping;
        synchronized (this) {
            stopping = campaign;
            campaign = null;
        }
        if (stopping == null) {
            return;
        }
        stopping.stop();
        if (Thread.currentThread() == stopping.thread) {
            return; // a callback stopped its own initiator: the loop ends when it returns
        }
        try {
            stopping.thread.join(STOP_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopping.thread.isAlive()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "leader initiator of ''{0}'' still stopping after {1} ms",
                    role,
                    STOP_WAIT_MS);
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return campaign != null;
    }

    @Override
    public void destroy() {
        stop();
    }

    @Override
    public String toString() {
        return "TenureLeaderInitiator[" + role + ", " + candidate.getId() + ", running " + isRunning() + "]";
    }

    /** How one leadership, or one attempt at it, ended. */
    private enum Outcome {
        /** Yielded: campaign again at once. */
        YIELDED,
        /** Lost, or the campaign failed: a new session after the back-off. */
        BROKEN,
        STOPPED
    }

    /** One run between a start and a stop, on its own thread; its session is that thread's only. */
    private final class Campaign implements Runnable {
        final Thread thread;
        private final CompletableFuture<Void> stopped = new CompletableFuture<>();
        private final Object grantingGuard = new Object();
        private boolean granting; // guarded by grantingGuard
        private @Nullable Session session;

        Campaign() {
            thread = new Thread(this, "tenure-leader-" + role);
            thread.setDaemon(true);
        }

        void stop() {
            stopped.complete(null);
            interruptGranting();
        }

        @Override
        public void run() {
            long delayNanos = 0;
            try {
                while (!stopped.isDone()) {
                    if (delayNanos > 0 && pauseStopped(delayNanos)) {
                        break;
                    }
                    Outcome outcome;
                    try {
                        outcome = campaignOnce();
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "campaign for ''" + role + "'' failed; trying again", e);
                        outcome = Outcome.BROKEN;
                    }
                    if (outcome == Outcome.BROKEN) {
                        closeSession();
                        long min = retryDelayMin.toNanos();
                        delayNanos = delayNanos == 0 ? min : Math.min(2 * delayNanos, retryDelayMax.toNanos());
                    } else if (outcome == Outcome.YIELDED) {
                        delayNanos = 0;
                    }
                }
            } finally {
                closeSession();
            }
        }

        private Outcome campaignOnce() {
            Session s = session;
            if (s == null || s.state() == Session.State.LOST) {
                s = awaitOrStop(client.openSessionAsync());
                if (s == null) {
                    return Outcome.STOPPED;
                }
                session = s;
            }
            Leadership leadership = awaitOrStop(s.campaignAsync(role, value));
            return leadership == null ? Outcome.STOPPED : lead(leadership);
        }

        /**
         * Leads until the leadership stops being valid, is yielded, or the initiator stops. The
         * candidate is revoked before the resignation, so its work has stopped when the next
         * candidate is elected; after a loss the cluster elects no one before the horizon that
         * revoked it here.
         */
        private Outcome lead(Leadership leadership) {
            CompletableFuture<?> invalid = leadership.lease().invalidated();
            if (invalid.isDone()) {
                return Outcome.BROKEN; // lost before it could be granted: never a granted candidate
            }
            TenureLeaderContext ctx = TenureLeaderContext.of(role, leadership, this::interruptGranting);
            context = ctx;
            CompletableFuture<?> unused = invalid.whenComplete((r, e) -> interruptGranting());
            granted(ctx, invalid);
            CompletableFuture.anyOf(invalid, ctx.yielded(), stopped).join();
            boolean broken = invalid.isDone();
            ctx.end();
            context = notLeading;
            revoked(ctx);
            if (broken) {
                return Outcome.BROKEN;
            }
            leadership.resign();
            return stopped.isDone() ? Outcome.STOPPED : Outcome.YIELDED;
        }

        private void granted(TenureLeaderContext ctx, CompletableFuture<?> invalid) {
            synchronized (grantingGuard) {
                granting = true;
            }
            try {
                candidate.onGranted(ctx);
            } catch (InterruptedException e) {
                // The leadership ended while the candidate led in this thread: revoked next.
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "candidate's onGranted threw", e);
            } finally {
                synchronized (grantingGuard) {
                    granting = false;
                }
                boolean unusedFlag = Thread.interrupted(); // an interrupt was for onGranted only
            }
            LeaderEventPublisher events = publisher;
            if (events != null && !invalid.isDone() && !ctx.yielded().isDone() && !stopped.isDone()) {
                try {
                    events.publishOnGranted(TenureLeaderInitiator.this, ctx, role);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "publishing OnGrantedEvent failed", e);
                }
            }
        }

        private void revoked(TenureLeaderContext ctx) {
            try {
                candidate.onRevoked(ctx);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "candidate's onRevoked threw", e);
            }
            LeaderEventPublisher events = publisher;
            if (events != null) {
                try {
                    events.publishOnRevoked(TenureLeaderInitiator.this, ctx, role);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "publishing OnRevokedEvent failed", e);
                }
            }
        }

        /** A candidate that leads inside onGranted learns of the end by an interrupt. */
        private void interruptGranting() {
            synchronized (grantingGuard) {
                if (granting) {
                    thread.interrupt();
                }
            }
        }

        /** {@code pending}'s value, or null if the initiator stopped first (then it is cancelled). */
        private <T> @Nullable T awaitOrStop(CompletableFuture<T> pending) {
            try {
                CompletableFuture.anyOf(pending, stopped).join();
            } catch (RuntimeException failedFirst) {
                // pending failed: join() below throws it
            }
            if (stopped.isDone()) {
                // Cancelling withdraws a candidacy; a grant that raced it is released by the client.
                pending.cancel(true);
                return null;
            }
            return pending.join();
        }

        /** Waits {@code nanos}; true if the initiator stopped meanwhile. */
        private boolean pauseStopped(long nanos) {
            try {
                stopped.get(nanos, TimeUnit.NANOSECONDS);
                return true;
            } catch (java.util.concurrent.TimeoutException e) {
                return false;
            } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
                return stopped.isDone();
            }
        }

        private void closeSession() {
            Session s = session;
            session = null;
            if (s != null) {
                try {
                    s.close(); // ends every lease of it at once, where the cluster can be reached
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "closing the leader session failed", e);
                }
            }
        }
    }
}
