package dev.tenure.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.process.Dirs;
import dev.tenure.process.NodeProcess;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configuration's {@code tenure.tls.*} against a real node that serves mutual TLS only:
 * with the three files the registry locks and fences; without them, or with a certificate the
 * node's CA did not sign, no session opens and health says DOWN.
 */
class TenureTlsIT {

    private static Path data;
    private static NodeProcess node;
    private static Authority ca;
    private static Credential alice;

    @BeforeAll
    static void tlsNode() throws Exception {
        data = Files.createTempDirectory("tenure-spring-tls-");
        TestCertificates pki = new TestCertificates(data.resolve("pki"));
        ca = pki.authority("tenure-test-ca");
        // The node's certificate names 127.0.0.1 only: the endpoint is an address, not "localhost".
        Credential server = ca.server("node-0", "127.0.0.1");
        alice = ca.client("alice");
        node = NodeProcess.start(
                data.resolve("node"),
                List.of(
                        "--tls-cert", server.certificate().toString(),
                        "--tls-key", server.key().toString(),
                        "--tls-ca", ca.certificate().toString()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
        Dirs.deleteTree(data);
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .withPropertyValues("tenure.endpoints=" + node.endpoint());
    }

    private static String[] tls(Credential who) {
        return new String[] {
            "tenure.tls.cert=" + who.certificate(), "tenure.tls.key=" + who.key(), "tenure.tls.ca=" + ca.certificate()
        };
    }

    @Test
    void withTheCertificatesTheRegistryLocksAndFences() {
        runner().withPropertyValues(tls(alice)).run(context -> {
            TenureRegistryLock lock = context.getBean(TenureLockRegistry.class).obtain("tls-spring");
            lock.lock();
            try {
                assertThat(lock.fence(Duration.ofMillis(100))).isPositive();
            } finally {
                lock.unlock();
            }
            Health health = context.getBean(TenureHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void withoutTlsNoSessionOpens() {
        runner().run(context -> assertThat(
                        context.getBean(TenureHealthIndicator.class).health().getStatus())
                .isEqualTo(Status.DOWN));
    }

    @Test
    void aCertificateOfAnotherAuthorityIsRefused() throws Exception {
        Credential mallory = new TestCertificates(data.resolve("rogue"))
                .authority("rogue-ca")
                .client("mallory");
        runner().withPropertyValues(tls(mallory))
                .run(context -> assertThat(context.getBean(TenureHealthIndicator.class)
                                .health()
                                .getStatus())
                        .isEqualTo(Status.DOWN));
    }
}
