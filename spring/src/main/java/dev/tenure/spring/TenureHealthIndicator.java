package dev.tenure.spring;

import dev.tenure.client.Session;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The registry's session as health: UP while CONNECTED; OUT_OF_SERVICE while UNCERTAIN (a
 * renewal is late, so no lock of this instance can be trusted until it resolves); DOWN when the
 * session is LOST or cannot be opened. Opening the session here, if no lock did yet, is the check
 * that the cluster answers.
 */
public final class TenureHealthIndicator implements HealthIndicator {

    private final TenureLockRegistry registry;

    public TenureHealthIndicator(TenureLockRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Health health() {
        Session session;
        try {
            session = registry.session();
        } catch (RuntimeException e) {
            return Health.down(e).build();
        }
        Session.State state = session.state();
        Status status = switch (state) {
            case CONNECTED -> Status.UP;
            case UNCERTAIN -> Status.OUT_OF_SERVICE;
            case LOST -> Status.DOWN;
        };
        return Health.status(status)
                .withDetail("session", session.id())
                .withDetail("state", state.name())
                .withDetail("sessionTtl", session.ttl().toString())
                .build();
    }
}
