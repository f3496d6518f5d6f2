package dev.tenure.spring;

import dev.tenure.client.LossReason;
import java.time.Duration;

/**
 * What a {@link TenureLockRegistry} tells about its holds, for metrics. Called on the thread that
 * locked or unlocked, except {@link #lost}, which runs where the client learns the loss; it must
 * not block. It never receives lock names: they are unbounded and would explode a metric's tags.
 */
public interface LockObserver {

    /** A thread waited {@code wait} for a grant (locally and on the cluster) and got it. */
    default void acquired(Duration wait) {}

    /** A hold ended by unlock after {@code held}, whether or not its lease was still valid. */
    default void released(Duration held) {}

    /** A lease ended before its holder unlocked it. */
    default void lost(LossReason reason) {}
}
