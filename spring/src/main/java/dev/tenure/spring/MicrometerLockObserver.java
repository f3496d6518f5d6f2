package dev.tenure.spring;

import dev.tenure.client.LossReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * A registry's holds as Micrometer meters, tagged by nothing unbounded (no lock names):
 * {@value #WAIT} (timer), {@value #HOLD} (timer), {@value #LOSSES} (counter, tag {@code reason}).
 */
public final class MicrometerLockObserver implements LockObserver {

    public static final String WAIT = "tenure.lock.acquire.wait";
    public static final String HOLD = "tenure.lock.hold";
    public static final String LOSSES = "tenure.lock.losses";

    private final MeterRegistry meters;
    private final Timer wait;
    private final Timer hold;

    public MicrometerLockObserver(MeterRegistry meters) {
        this.meters = meters;
        this.wait = Timer.builder(WAIT)
                .description("time from lock() to the grant, locally and on the cluster")
                .register(meters);
        this.hold = Timer.builder(HOLD)
                .description("time from the grant to the unlock that released it")
                .register(meters);
    }

    @Override
    public void acquired(Duration waited) {
        wait.record(waited);
    }

    @Override
    public void released(Duration held) {
        hold.record(held);
    }

    @Override
    public void lost(LossReason reason) {
        Counter.builder(LOSSES)
                .description("leases that ended before their holder unlocked them")
                .tag("reason", reason.name())
                .register(meters)
                .increment();
    }
}
