package dev.tenure.spring;

import dev.tenure.client.TenureClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.UUID;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A {@link TenureClient} from the {@code tenure.*} properties, a {@link TenureLockRegistry} on it,
 * its health and, when a {@link MeterRegistry} bean exists, its metrics; with {@code
 * tenure.leader.role} set, a {@link TenureLeaderInitiator} for that role; each only if the
 * application has no bean of that type. The context's close closes the registry first (its
 * session ends and every lease it held is released at once), then the client.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({TenureClient.class, LockRegistry.class})
@EnableConfigurationProperties(TenureProperties.class)
public class TenureAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public TenureClient tenureClient(TenureProperties properties) {
        TenureClient.Builder builder = TenureClient.builder();
        if (properties.endpoints() == null || properties.endpoints().isEmpty()) {
            throw new IllegalStateException("tenure.endpoints is required (host:port of each node)");
        }
        builder.endpoints(properties.endpoints());
        if (properties.sessionTtl() != null) {
            builder.sessionTtl(properties.sessionTtl());
        }
        if (properties.disconnectGrace() != null) {
            builder.disconnectGrace(properties.disconnectGrace());
        }
        TenureProperties.Tls tls = properties.tls();
        if (tls != null && (tls.cert() != null || tls.key() != null || tls.ca() != null)) {
            if (tls.cert() == null || tls.key() == null || tls.ca() == null) {
                throw new IllegalStateException("tenure.tls needs cert, key and ca together");
            }
            builder.tls(tls.ca(), tls.cert(), tls.key());
        }
        return builder.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public TenureLockRegistry tenureLockRegistry(TenureClient client, ObjectProvider<LockObserver> observer) {
        TenureLockRegistry registry = new TenureLockRegistry(client);
        observer.ifAvailable(registry::setObserver);
        return registry;
    }

    /** Health, where Boot's health module is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {

        @Bean
        @ConditionalOnMissingBean
        TenureHealthIndicator tenureHealthIndicator(TenureLockRegistry registry) {
            return new TenureHealthIndicator(registry);
        }
    }

    /** Metrics, where Micrometer is on the class path and the application has a meter registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class Metrics {

        @Bean
        @ConditionalOnBean(MeterRegistry.class)
        @ConditionalOnMissingBean
        LockObserver tenureLockMetrics(MeterRegistry meters) {
            return new MicrometerLockObserver(meters);
        }
    }

    /** Leader election for {@code tenure.leader.role}, whose events the application listens to. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "tenure.leader", name = "role")
    @EnableConfigurationProperties(TenureLeaderProperties.class)
    static class Leader {

        @Bean
        @ConditionalOnMissingBean
        TenureLeaderInitiator tenureLeaderInitiator(TenureClient client, TenureLeaderProperties properties) {
            String id = properties.id() == null ? UUID.randomUUID().toString() : properties.id();
            return new TenureLeaderInitiator(
                    client, new DefaultCandidate(id, Objects.requireNonNull(properties.role(), "tenure.leader.role")));
        }
    }
}
