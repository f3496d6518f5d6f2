package dev.tenure.gateway;

/**
 * The gateway's clock for what it does later: end a session once its disconnect grace has passed,
 * withdraw a wait whose call ended, flush an AttachMany stream's queued answers. The server's is
 * one timer thread; the simulation's runs on its event loop and the node's drifting clock. If the
 * node stops first, nothing scheduled runs, which is safe: its sessions then end at their TTL and
 * its waits with their session or their wait time.
 */
public interface Scheduler {
    /** Runs {@code action} once {@code delayMs} (more than 0) have passed. */
    void later(long delayMs, Runnable action);

    /** Runs {@code action} soon, on the scheduler's own thread, after the caller returns. */
    void soon(Runnable action);
}
