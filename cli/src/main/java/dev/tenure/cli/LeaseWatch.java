package dev.tenure.cli;

import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * How a command that holds a lease knows when to stop: at the first of its own ends (a signal,
 * the command's exit), the lease's first invalidity, or the moment no more than a lead is left of
 * the lease's validity, so that whatever stopping takes is done before the validity ends.
 */
final class LeaseWatch {
    /**
     * How long this process may take to be gone once it decides to stop: tens of milliseconds
     * once its event loop is stopped (see {@link CliChannels}), with room for a slow scheduler.
     */
    static final Duration EXIT_LEAD = Duration.ofMillis(150);

    private LeaseWatch() {}

    /**
     * The window a healthy lease's validity is renewed within: the TTL, or the disconnect grace or
     * a MANUAL lease's TTL when shorter.
     */
    static Duration window(ClientOptions client, PolicyOptions policy) {
        Duration window = client.ttl;
        Duration disconnectGrace = client.effectiveGrace();
        if (!disconnectGrace.isZero() && disconnectGrace.compareTo(window) < 0) {
            window = disconnectGrace;
        }
        if (policy.manual() && policy.leaseTtl != null && policy.leaseTtl.compareTo(window) < 0) {
            window = policy.leaseTtl;
        }
        return window;
    }

    /** The exit lead, or less for a short window: a healthy lease keeps more than half of it. */
    static Duration exitLead(Duration window) {
        Duration half = window.dividedBy(2);
        return half.compareTo(EXIT_LEAD) < 0 ? half : EXIT_LEAD;
    }

    /**
     * What {@link #invalidity} completes with when the lease's connection is in doubt; printed as
     * the client named it before in doubt was told apart from a loss.
     */
    static final Object IN_DOUBT = new Object() {
        @Override
        public String toString() {
            return "CONNECTION_IN_DOUBT";
        }
    };

    /**
     * The lease's {@link Lease#invalidated()}, completing with its {@link LossReason} if it was
     * lost, or with {@link #IN_DOUBT}.
     */
    static CompletableFuture<Object> invalidity(Lease lease) {
        return lease.invalidated()
                .thenApply(loss -> loss.<Object>map(reason -> reason).orElse(IN_DOUBT));
    }

    /**
     * The value of the first of {@code ends} to complete (the lease's {@link #invalidity}
     * among them, as the caller chooses), or null once no more than {@code lead} is left of the
     * lease's validity, checked again whenever that moment comes, since renewals and echoes move it.
     */
    static @Nullable Object firstOf(Lease lease, Duration lead, CompletableFuture<?>... ends)
            throws InterruptedException {
        CompletableFuture<Object> first = CompletableFuture.anyOf(ends);
        long leadNanos = lead.toNanos();
        while (true) {
            long waitNanos = lease.remaining().toNanos() - leadNanos;
            if (waitNanos <= 0 && !first.isDone()) {
                return null;
            }
            try {
                return first.get(Math.max(waitNanos, 0), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // look at the lease again
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
    }
}
