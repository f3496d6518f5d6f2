package dev.tenure.client;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to acquire: how long to wait, and the policy of the grant. The policy travels with this
 * acquire and applies to the grant it produces (another holder of the same lock may ask for
 * another policy). Every setting is off by default; the server checks each against its limits and
 * refuses the acquire ({@link TenureException.Code#INVALID_REQUEST}) if one is outside them.
 *
 * <pre>{@code
 * session.acquire("orders", AcquireOptions.builder()
 *         .wait(Duration.ofSeconds(5))
 *         .maxHold(Duration.ofMinutes(10))   // revoked after 10 min, renewed or not
 *         .renew(Renew.MANUAL).leaseTtl(Duration.ofSeconds(30)) // the work loop must renew
 *         .lockDelay(Duration.ofSeconds(5))  // after an unclean end, nobody gets it for 5 s
 *         .build());
 * }</pre>
 */
public final class AcquireOptions {
    /** How a lease stays alive. */
    public enum Renew {
        /** With its session: every keepalive renews it. */
        AUTO,
        /**
         * Only when the work loop calls {@link Lease#renew()} or {@link Lease#fence(Duration)}: a
         * stuck loop loses the lease (EXPIRED after its lease TTL) while the session lives on.
         */
        MANUAL
    }

    private final @Nullable Duration wait;
    private final Duration lockDelay;
    private final Duration maxHold;
    private final Renew renew;
    private final @Nullable Duration leaseTtl;
    private final int permits;
    private final boolean shared;
    private final byte[] value;

    private AcquireOptions(Builder b) {
        this.value = b.value;
        this.permits = b.permits;
        this.shared = b.shared;
        this.wait = b.wait;
        this.lockDelay = b.lockDelay;
        this.maxHold = b.maxHold;
        this.renew = b.renew;
        this.leaseTtl = b.leaseTtl;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Null: wait until granted or the session is lost. */
    public @Nullable Duration waitTime() {
        return wait;
    }

    public Duration lockDelay() {
        return lockDelay;
    }

    public Duration maxHold() {
        return maxHold;
    }

    public Renew renew() {
        return renew;
    }

    /** The TTL of a MANUAL lease; null when not set (a MANUAL lease then takes its session's). */
    public @Nullable Duration leaseTtl() {
        return leaseTtl;
    }

    /** How many leases the lock admits at once: 1 for a plain lock, N for a semaphore. */
    public int permits() {
        return permits;
    }

    /** A shared lease: one of any number of shared holders, excluded by an exclusive one. */
    public boolean shared() {
        return shared;
    }

    /** A campaign's election value (a copy; empty: a plain acquire). See {@link Session#campaign}. */
    public byte[] value() {
        return value.clone();
    }

    /**
     * Builds {@link AcquireOptions}; every setting starts at its documented default, so an empty
     * builder asks for a plain exclusive lease that waits forever.
     */
    public static final class Builder {
        private int permits = 1;
        private boolean shared;
        private byte[] value = new byte[0];
        private @Nullable Duration wait;
        private Duration lockDelay = Duration.ZERO;
        private Duration maxHold = Duration.ZERO;
        private Renew renew = Renew.AUTO;
        private @Nullable Duration leaseTtl;

        private Builder() {}

        /** Wait at most this long in the lock's queue; {@code Duration.ZERO}: do not wait. Default: forever. */
        public Builder wait(Duration wait) {
            this.wait = nonNegative("wait", wait);
            return this;
        }

        /**
         * After this grant ends EXPIRED, DISCONNECTED or REVOKED (not after a clean release), the lock is
         * granted to nobody for this long: for storage that cannot check tokens, where the old holder's
         * writes may still be in flight. Waiters stay queued. Default zero (off).
         */
        public Builder lockDelay(Duration delay) {
            this.lockDelay = nonNegative("lockDelay", delay);
            return this;
        }

        /** The grant is revoked this long after it was made, renewed or not. Default zero (off). */
        public Builder maxHold(Duration maxHold) {
            this.maxHold = nonNegative("maxHold", maxHold);
            return this;
        }

        public Builder renew(Renew renew) {
            this.renew = Objects.requireNonNull(renew, "renew");
            return this;
        }

        /** The TTL of a MANUAL lease. Default: the session's TTL. */
        public Builder leaseTtl(Duration ttl) {
            this.leaseTtl = nonNegative("leaseTtl", ttl);
            return this;
        }

        /**
         * A semaphore: the lock admits up to {@code permits} leases at once, each with its own token,
         * granted in FIFO order. Every acquirer of the name must name the same number while anyone
         * holds or waits for it (else the server refuses with INVALID). At most permitsMax (1,000).
         * Takes no lockDelay, maxHold or MANUAL renewal. Default 1: a plain lock.
         */
        public Builder permits(int permits) {
            if (permits < 1) {
                throw new IllegalArgumentException("permits must be at least 1: " + permits);
            }
            this.permits = permits;
            return this;
        }

        /**
         * A shared lease: any number of shared holders at once, or one exclusive holder. Waiters
         * stay FIFO: a shared acquire queues behind a waiting exclusive one. Takes no permits,
         * lockDelay, maxHold or MANUAL renewal. {@link Lease#downgrade()} turns an exclusive lease
         * into a shared one; there is no upgrade.
         */
        public Builder shared() {
            this.shared = true;
            return this;
        }

        /**
         * A campaign: the acquire waits and then holds the lock as an election's candidate and
         * leader publishing {@code value} (shown by status, replaced by {@link Leadership#proclaim}).
         * At most electionValueBytesMax (1 KiB by default); only with an exclusive lease of a plain lock.
         */
        public Builder value(byte[] value) {
            this.value = Objects.requireNonNull(value, "value").clone();
            return this;
        }

        public AcquireOptions build() {
            if (value.length > 0 && (shared || permits != 1)) {
                throw new IllegalArgumentException("an election value goes with an exclusive lease of a plain lock");
            }
            if (shared && permits != 1) {
                throw new IllegalArgumentException("a shared lease takes no permits: " + permits);
            }
            if (leaseTtl != null && !leaseTtl.isZero() && renew != Renew.MANUAL) {
                throw new IllegalArgumentException("leaseTtl applies to renew(MANUAL) only");
            }
            return new AcquireOptions(this);
        }

        private static Duration nonNegative(String what, Duration d) {
            Objects.requireNonNull(d, what);
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " must not be negative: " + d);
            }
            return d;
        }
    }

    /** Whether {@code other} asks for the same grant policy and kind of lease (the wait aside). */
    boolean samePolicy(AcquireOptions other) {
        return lockDelay.equals(other.lockDelay)
                && maxHold.equals(other.maxHold)
                && renew == other.renew
                && Objects.equals(leaseTtl, other.leaseTtl)
                && permits == other.permits
                && shared == other.shared;
    }

    /** The policy to ask for; a MANUAL lease without its own TTL takes the session's. */
    GrantPolicy policy(Duration sessionTtl) {
        long ttlMs = 0;
        if (renew == Renew.MANUAL) {
            ttlMs = leaseTtl == null || leaseTtl.isZero() ? sessionTtl.toMillis() : ceilMillis(leaseTtl);
        }
        return new GrantPolicy(ceilMillis(lockDelay), ceilMillis(maxHold), ttlMs);
    }

    private static long ceilMillis(Duration d) {
        try {
            long ms = d.toMillis();
            return ms == 0 && !d.isZero() ? 1 : ms;
        } catch (ArithmeticException beyondLong) {
            return Long.MAX_VALUE; // the server refuses it, naming the limit
        }
    }
}
