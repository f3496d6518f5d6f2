package dev.tenure.spring;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code tenure.leader.*} properties: with a role set, the auto-configuration adds a {@link
 * TenureLeaderInitiator} whose candidate publishes Spring Integration's {@code OnGrantedEvent} and
 * {@code OnRevokedEvent} to the application.
 *
 * @param role the election's name: instances with the same role elect one leader (required for
 *     the bean)
 * @param id this candidate's id, the value the leader publishes; default a random UUID
 */
@ConfigurationProperties("tenure.leader")
public record TenureLeaderProperties(
        @Nullable String role, @Nullable String id) {}
