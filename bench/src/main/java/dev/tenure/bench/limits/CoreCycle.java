package dev.tenure.bench.limits;

import dev.tenure.core.Command;
import dev.tenure.core.Limits;
import dev.tenure.core.Result;
import dev.tenure.core.StateMachine;

/**
 * One acquire + release of one free lock by one session, straight through
 * {@link StateMachine#apply} with its invariant checks: the work the replicated log asks of each
 * replica per cycle, without the log. Shared by the JMH benchmark and {@code tenure bench limits}.
 */
public final class CoreCycle {

    private static final long NOW_MS = 1_000;
    private static final long TTL_MS = 3_600_000;

    private final StateMachine machine = new StateMachine(Limits.defaults());
    private final long session;
    private long requestId;

    public CoreCycle() {
        Result opened = machine.apply(NOW_MS, new Command.OpenSession(TTL_MS, "bench"));
        session = ((Result.SessionOpened) opened).sessionId();
    }

    /** Returns the token granted, so that the work cannot be optimised away. */
    public long acquireRelease() {
        Result granted = machine.apply(NOW_MS, new Command.Acquire(session, ++requestId, "bench-lock", 0));
        long token = ((Result.Granted) granted).grant().token();
        Result released = machine.apply(NOW_MS, new Command.Release(session, ++requestId, "bench-lock", token, false));
        if (!(released instanceof Result.Ok)) {
            throw new IllegalStateException("release did not succeed: " + released);
        }
        return token;
    }
}
