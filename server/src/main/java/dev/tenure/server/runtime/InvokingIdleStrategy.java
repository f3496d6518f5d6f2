package dev.tenure.server.runtime;

import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.IdleStrategy;

/**
 * Runs an agent each time its owner waits, instead of sleeping: for an agent that waits on work
 * that another agent on the same thread does. The consensus module's own waits (start-up
 * recovery, back pressure, archive requests) run the archive, and through it the media driver, so
 * nothing it waits for stands still.
 */
public final class InvokingIdleStrategy implements IdleStrategy {
    private final AgentInvoker invoker;

    public InvokingIdleStrategy(AgentInvoker invoker) {
        this.invoker = invoker;
    }

    @Override
    public void idle(int workCount) {
        if (workCount <= 0) {
            idle();
        }
    }

    @Override
    public void idle() {
        if (invoker.invoke() == 0) {
            Thread.onSpinWait();
        }
    }

    @Override
    public void reset() {}
}
