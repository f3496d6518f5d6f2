package dev.tenure.server.runtime;

import io.aeron.driver.MediaDriver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import org.agrona.nio.TransportPoller;

/**
 * Lets the thread that runs an {@code INVOKER}-mode media driver rest in the driver's own socket
 * selector instead of a timed park, so that a datagram ends the rest the moment it arrives.
 *
 * <p>Why: on a member of a cluster the log, the followers' acknowledgements and the leader's
 * replies all come over UDP, and a parked thread notices them only when its park ends; each such
 * hop of a request waited out part of a park (up to 300 µs hot, plus the kernel's timer slack).
 * Everything else that brings this thread work announces itself through {@link AgentWakeup},
 * which calls {@link #wake()}. Resting here, a follower's consensus thread wakes about half as
 * often under load (see BENCHMARKS.md, 'A consensus thread that a datagram wakes').
 *
 * <p>The selector is the driver's receiver's ({@code DataTransportPoller}): every subscription's
 * socket is registered with it, for reading. Waiting in it processes nothing: the ready keys are
 * ignored here and read by the driver's next duty cycle (epoll is level-triggered). Aeron does
 * not expose the selector, so it is read by reflection from the version Tenure pins; a change of
 * Aeron that moves it fails {@link #of(MediaDriver)} at start, not silently.
 */
final class SocketWait {

    private final Selector selector;
    private volatile boolean waiting;
    /** A hand-off came since the last wait ended: the next wait returns at once. */
    private volatile boolean woken;

    SocketWait(Selector selector) {
        this.selector = selector;
    }

    /** The driver's receive selector; the driver must have been launched. */
    static SocketWait of(MediaDriver driver) {
        try {
            Field poller = MediaDriver.Context.class.getDeclaredField("dataTransportPoller");
            poller.setAccessible(true);
            Field selector = TransportPoller.class.getDeclaredField("selector");
            selector.setAccessible(true);
            return new SocketWait((Selector) selector.get(poller.get(driver.context())));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reach the media driver's receive selector", e);
        }
    }

    /**
     * Waits until a datagram arrives, {@link #wake()} is called, or about {@code nanos} pass
     * (rounded up to whole milliseconds: the selector's resolution, and nothing unannounced needs
     * this thread sooner).
     */
    void await(long nanos) {
        waiting = true;
        try {
            // Checked after waiting is set: a wake() either sees waiting (and wakes the selector)
            // or is seen here.
            if (!woken) {
                selector.select(SocketWait::ignore, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            waiting = false;
        }
        if (woken) {
            woken = false;
        }
    }

    /**
     * Ends the current wait, or the next one. A thread that is running pays a volatile write; only
     * one that waits (or is about to) pays the selector's wake-up, a system call on each side.
     */
    void wake() {
        woken = true;
        if (waiting) {
            selector.wakeup();
        }
    }

    /** The ready keys are the driver's to read, on its next duty cycle. */
    private static void ignore(SelectionKey key) {}
}
