package dev.tenure.example.scheduler;

import dev.tenure.client.TenureClient;
import dev.tenure.jdbc.JdbcFence;
import dev.tenure.jdbc.TenureTokenVerifier;
import dev.tenure.shedlock.TenureLockProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The application: a {@link TenureClient}, ShedLock's provider on it, an H2 data source shared by
 * every instance, and the JDBC fence that checks each write's token against that database.
 *
 * <p>Run two of these against one node and one database: the job runs on one instance at a time,
 * and a write of an instance whose lease ended (paused, partitioned, revoked at
 * {@code lockAtMostFor}) is refused by the fence, whatever the instance still believes.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class SchedulerExample {

    /** Starts the application; the {@code tenure.*} and {@code example.*} properties configure it. */
    public static void main(String[] args) {
        SpringApplication.run(SchedulerExample.class, args);
    }

    /**
     * The client, closed by the context after the provider (which depends on it). A short
     * disconnect grace lets a crashed instance's lock pass on sooner; the client's default (900 ms)
     * is the safe one.
     */
    @Bean(destroyMethod = "close")
    TenureClient tenureClient(
            @Value("${tenure.endpoints}") String[] endpoints,
            @Value("${tenure.disconnect-grace:900ms}") Duration disconnectGrace) {
        return TenureClient.builder()
                .endpoints(Arrays.stream(endpoints).map(String::trim).toList())
                .disconnectGrace(disconnectGrace)
                .build();
    }

    /**
     * ShedLock's lock provider on Tenure. Its close (the context's, on SIGTERM) closes its session,
     * so the cluster releases the job's lock at once and the other instance runs the next time its
     * schedule fires, without waiting for the disconnect grace.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "example.lock", havingValue = "true", matchIfMissing = true)
    TenureLockProvider lockProvider(TenureClient client) {
        return new TenureLockProvider(client);
    }

    /**
     * For the tests only ({@code example.lock=false}): a provider that grants every lock, so that
     * every instance runs every firing. {@code TwoInstancesIT} runs it to show that its overlap
     * check does catch runs that overlap; never set it in a deployment.
     */
    @Bean
    @ConditionalOnProperty(name = "example.lock", havingValue = "false")
    LockProvider unlockedForTests() {
        return config -> Optional.of(() -> {});
    }

    /** The shared database: H2 as a server, or one file with {@code AUTO_SERVER=TRUE}. */
    @Bean
    DataSource dataSource(@Value("${example.db-url}") String url) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url);
        h2.setUser("sa");
        return h2;
    }

    /**
     * The fence. It confirms a token with Tenure the first time it sees it (one linearizable read
     * per run), so a number that no lease carries can never raise the fence's mark.
     */
    @Bean
    JdbcFence fence(TenureClient client, DataSource dataSource) throws SQLException {
        JdbcFence fence =
                JdbcFence.builder().verifier(new TenureTokenVerifier(client)).build();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            fence.createTable(c);
            s.execute(ReportJob.DDL);
        }
        return fence;
    }
}
