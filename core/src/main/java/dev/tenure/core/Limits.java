package dev.tenure.core;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every bound the state machine keeps. All members of a cluster must run with the same limits:
 * they decide outcomes at apply time, so differing limits would make replicas diverge.
 * Units are last in each name.
 *
 * <p>The counts and byte budgets bound what the replicated state can hold, so that a node can
 * tell at start whether its heap holds them (see the server's memory budget): every kind of
 * record the state keeps is bounded by one of them, directly or as a product of two.
 *
 * @param locksMax locks that are held, waited for or in their lock delay (every lock record but
 *     the idle ones, which {@code idleLocksMax} bounds): so at most this many leases are held
 * @param waitersMax acquires queued, over all locks
 * @param kvBytesMax the fenced KV's stored bytes: each key's UTF-8 bytes, its value's and its
 *     fencing lock name's, summed over all keys
 * @param checkpointTotalBytesMax the bytes of every checkpoint the locks keep: each lock's last
 *     checkpoint, and the one its current lease was granted with once the holder wrote another
 * @param ephemeralKeysPerSessionMax keys one session holds as ephemeral (deleted when it ends): the
 *     session's end deletes them all in one apply, so this bounds that apply's work
 * @param permitsMax the most leases one semaphore name may admit at once ({@code --permits N}); a
 *     semaphore's leases are held leases like any other, so leasesPerSessionMax and sessionsMax
 *     bound them in all, and this bounds the leases one lock record carries and the work of the
 *     apply that admits its waiters
 * @param electionValueBytesMax the value a campaign (an acquire with a value) or a proclaim may
 *     carry: each lease and each waiter keeps at most this many bytes
 * @param electionValueTotalBytesMax the bytes of every election value the leases and waiters
 *     keep, summed (as checkpointTotalBytesMax bounds the checkpoints): what the memory budget counts
 * @param readLeaseMs the read lease, Δ: 0 (the default) turns it off. Not a bound of the state;
 *     it is agreed with the limits because every member must withhold a new term's answers at
 *     least as long as any member serves reads on a lease (see the server's {@code ReadLease}), and
 *     the limits are what the log makes every member agree on. At most {@link #READ_LEASE_MS_MAX}.
 */
public record Limits(
        long sessionTtlMsMin,
        long sessionTtlMsMax,
        int lockNameBytesMax,
        int keyBytesMax,
        int valueBytesMax,
        int clientNameBytesMax,
        int sessionsMax,
        int leasesPerSessionMax,
        int locksMax,
        int waitersMax,
        int waitersPerLockMax,
        int kvKeysMax,
        long kvBytesMax,
        int requestIdCacheMax,
        int historyPerLockMax,
        int idleLocksMax,
        long lockDelayMsMax,
        long maxHoldMsMax,
        int checkpointBytesMax,
        long checkpointTotalBytesMax,
        int ephemeralKeysPerSessionMax,
        int permitsMax,
        int electionValueBytesMax,
        long electionValueTotalBytesMax,
        long readLeaseMs,
        PrincipalLimits principal) {

    /**
     * The longest read lease: a new leader withholds its answers for the lease and a twentieth
     * more after every election, which must end within the time a node lets a request wait for
     * the cluster (1.5 s), or every request in it would fail and be retried.
     */
    public static final long READ_LEASE_MS_MAX = 1_000;

    /** What every node runs with unless told otherwise; sized so that a 512 MiB heap holds all of it. */
    public static Limits defaults() {
        return new Limits(
                200, // sessionTtlMsMin
                3_600_000, // sessionTtlMsMax: one hour
                256, // lockNameBytesMax
                512, // keyBytesMax
                64 * 1024, // valueBytesMax
                128, // clientNameBytesMax
                10_000, // sessionsMax
                1_000, // leasesPerSessionMax
                10_000, // locksMax
                10_000, // waitersMax
                1_000, // waitersPerLockMax
                50_000, // kvKeysMax
                32L << 20, // kvBytesMax: 32 MiB
                32, // requestIdCacheMax: outcomes remembered per session for retries
                16, // historyPerLockMax: past tenures kept per lock
                2_000, // idleLocksMax: free locks kept for their history
                600_000, // lockDelayMsMax: ten minutes
                7 * 86_400_000L, // maxHoldMsMax: a week
                16 * 1024, // checkpointBytesMax
                4L << 20, // checkpointTotalBytesMax: 4 MiB
                1_000, // ephemeralKeysPerSessionMax
                1_000, // permitsMax
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax: 1 MiB
                0, // readLeaseMs: off, every read proven by an entry of the log
                PrincipalLimits.defaults());
    }

    public Limits {
        if (sessionTtlMsMin <= 0 || sessionTtlMsMax < sessionTtlMsMin) {
            throw new IllegalArgumentException("session TTL range must be positive and ordered");
        }
        if (lockNameBytesMax <= 0 || keyBytesMax <= 0 || valueBytesMax < 0 || clientNameBytesMax < 0) {
            throw new IllegalArgumentException("size limits must be positive");
        }
        if (sessionsMax <= 0
                || leasesPerSessionMax <= 0
                || locksMax < 0
                || waitersMax < 0
                || waitersPerLockMax < 0
                || kvKeysMax < 0
                || ephemeralKeysPerSessionMax < 0
                || permitsMax <= 0) {
            throw new IllegalArgumentException("count limits must be positive");
        }
        if (kvBytesMax < 0 || checkpointTotalBytesMax < 0 || electionValueTotalBytesMax < 0) {
            throw new IllegalArgumentException("byte budgets must not be negative");
        }
        if (requestIdCacheMax <= 0 || historyPerLockMax < 0 || idleLocksMax < 0) {
            throw new IllegalArgumentException("cache limits must be positive");
        }
        if (lockDelayMsMax < 0
                || maxHoldMsMax < sessionTtlMsMin
                || checkpointBytesMax < 0
                || electionValueBytesMax < 0) {
            throw new IllegalArgumentException(
                    "policy limits must be non-negative and maxHoldMsMax at least sessionTtlMsMin");
        }
        if (readLeaseMs < 0 || readLeaseMs > READ_LEASE_MS_MAX) {
            throw new IllegalArgumentException("readLeaseMs must be 0 (off) to " + READ_LEASE_MS_MAX);
        }
        if (principal == null) {
            throw new IllegalArgumentException("principal limits must be given");
        }
    }

    /**
     * The name of every limit {@link #with} sets: the record's own components, and the principal
     * limits by the names their refusals give ({@link PrincipalLimits#NAMES}).
     */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        for (RecordComponent c : Limits.class.getRecordComponents()) {
            if (c.getType() != PrincipalLimits.class) {
                names.add(c.getName());
            }
        }
        names.addAll(PrincipalLimits.NAMES.values());
        return names;
    }

    /**
     * A copy with the limit called {@code name} set to {@code value}; {@code name} is one of
     * {@link #names()}. Throws {@link IllegalArgumentException} for an unknown name or a value the
     * limit cannot take.
     */
    public Limits with(String name, long value) {
        for (var e : PrincipalLimits.NAMES.entrySet()) {
            if (e.getValue().equals(name)) {
                PrincipalLimits next;
                try {
                    next = copy(principal, e.getKey(), value);
                } catch (IllegalArgumentException bad) {
                    // Named as the caller named it, not as the component is called.
                    throw new IllegalArgumentException(
                            Objects.requireNonNull(bad.getMessage(), "copy's refusals all say why")
                                    .replaceFirst("^" + e.getKey() + " ", name + " "),
                            bad);
                }
                return copy(this, "principal", next);
            }
        }
        return copy(this, name, value);
    }

    /**
     * A copy with every limit {@code values} names set, in whatever order lets each pair of
     * limits that bound each other (a TTL range) move together; throws {@link
     * IllegalArgumentException} for an unknown name or values the limits cannot take together.
     */
    public Limits withAll(java.util.SortedMap<String, Long> values) {
        Limits out = this;
        java.util.Map<String, Long> left = new java.util.TreeMap<>(values);
        while (!left.isEmpty()) {
            int before = left.size();
            IllegalArgumentException last = null;
            for (var it = left.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                try {
                    out = out.with(e.getKey(), e.getValue());
                    it.remove();
                } catch (IllegalArgumentException refused) {
                    last = refused;
                }
            }
            if (left.size() == before) {
                throw last;
            }
        }
        return out;
    }

    /** Every limit by its name, in ascending order of name. */
    public java.util.SortedMap<String, Long> values() {
        java.util.TreeMap<String, Long> out = new java.util.TreeMap<>();
        for (String name : names()) {
            out.put(name, get(name));
        }
        return out;
    }

    /** The value of the limit called {@code name}, one of {@link #names()}. */
    public long get(String name) {
        for (var e : PrincipalLimits.NAMES.entrySet()) {
            if (e.getValue().equals(name)) {
                return component(principal, e.getKey());
            }
        }
        return component(this, name);
    }

    static long component(Record record, String name) {
        try {
            for (RecordComponent c : record.getClass().getRecordComponents()) {
                if (c.getName().equals(name) && (c.getType() == int.class || c.getType() == long.class)) {
                    return ((Number) c.getAccessor().invoke(record)).longValue();
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + name, e);
        }
        throw new IllegalArgumentException("no limit named " + name + "; the limits are " + names());
    }

    /** A copy of {@code record} with component {@code name} replaced: one place, whatever the record grows. */
    static <R extends Record> R copy(R record, String name, Object value) {
        RecordComponent[] components = record.getClass().getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        boolean found = false;
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                args[i] = components[i].getAccessor().invoke(record);
                if (components[i].getName().equals(name) && (value instanceof Long || types[i].isInstance(value))) {
                    args[i] = value instanceof Long n ? narrowed(name, n, types[i]) : value;
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalArgumentException("no limit named " + name + "; the limits are " + names());
            }
            @SuppressWarnings("unchecked")
            Constructor<R> canonical = (Constructor<R>) record.getClass().getDeclaredConstructor(types);
            return canonical.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException bad) {
                throw new IllegalArgumentException(name + " " + value + ": " + bad.getMessage(), bad);
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy " + record.getClass().getSimpleName(), e);
        }
    }

    private static Object narrowed(String name, long value, Class<?> type) {
        if (type == long.class) {
            return value;
        }
        if (type == int.class && value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) {
            return (int) value;
        }
        throw new IllegalArgumentException(name + " " + value + " is out of range (at most " + Integer.MAX_VALUE + ")");
    }
}
