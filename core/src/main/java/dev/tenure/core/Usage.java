package dev.tenure.core;

/**
 * How much of each count and byte budget of {@link Limits} the state uses: what a node reports
 * of its own replica (its metrics), not a replicated read.
 *
 * @param busyLocks locks held, waited for or in their lock delay (locksMax bounds them)
 * @param idleLocks free locks kept for their history (idleLocksMax)
 * @param waiters acquires queued (waitersMax)
 * @param kvBytes as kvBytesMax counts them
 * @param checkpointBytes as checkpointTotalBytesMax counts them
 */
public record Usage(
        long sessions, long busyLocks, long idleLocks, long waiters, long kvKeys, long kvBytes, long checkpointBytes) {}
