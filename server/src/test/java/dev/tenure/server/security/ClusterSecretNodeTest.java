package dev.tenure.server.security;

import static dev.tenure.server.InProcessServerTest.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.testkit.TimeScale;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.security.AuthenticationException;
import io.aeron.security.CredentialsSupplier;
import io.aeron.security.NullCredentialsSupplier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node started with a cluster secret: its own gateway serves clients as ever, while a stranger's
 * Aeron Cluster client, on a media driver of its own as another process would have, reaches the
 * consensus module's ingress port and is refused unless it proves the same secret.
 */
class ClusterSecretNodeTest {

    private static final ClusterSecret SECRET =
            new ClusterSecret("this cluster's 32-byte test key.".getBytes(StandardCharsets.US_ASCII));

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(SECRET);

    private static MediaDriver strangersDriver;

    @BeforeAll
    static void startStrangersDriver() {
        strangersDriver = MediaDriver.launchEmbedded(new MediaDriver.Context()
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new SleepingMillisIdleStrategy(1))
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true));
    }

    @AfterAll
    static void stopStrangersDriver() {
        if (strangersDriver != null) {
            strangersDriver.close();
        }
    }

    @Test
    void theNodesOwnGatewayIsAdmittedAndServesClients() throws Exception {
        SessionStream stream = new SessionStream(node.channel());
        long session = stream.open(10_000);
        AcquireResponse granted = node.stub().acquire(acquire(session, 1, "behind-the-secret", 0));
        assertThat(granted.getCode()).isEqualTo(Code.CODE_OK);
        assertThat(granted.getGrant().getToken()).isPositive();
        stream.out.onCompleted();
    }

    @Test
    void aClientWithoutCredentialsIsRefused() {
        assertThatThrownBy(() -> connect(NullCredentialsSupplier::new).close())
                .isInstanceOf(AuthenticationException.class);
    }

    @Test
    void aClientWithAnotherSecretIsRefused() {
        ClusterSecret other = new ClusterSecret("another cluster's 32-byte key...".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() ->
                        connect(() -> new SecretChallengeCredentials(other)).close())
                .isInstanceOf(AuthenticationException.class);
    }

    @Test
    void aClientWithTheSecretConnects() {
        try (AeronCluster client = connect(() -> new SecretChallengeCredentials(SECRET))) {
            assertThat(client.clusterSessionId()).isPositive();
            assertThat(client.leaderMemberId()).isZero();
        }
    }

    /** A cluster client of the node's consensus module over UDP, as a process on another host would be. */
    private static AeronCluster connect(java.util.function.Supplier<CredentialsSupplier> credentials) {
        ServerConfig.Member member = node.members().get(0);
        return AeronCluster.connect(new AeronCluster.Context()
                .aeronDirectoryName(strangersDriver.aeronDirectoryName())
                .ingressChannel("aeron:udp")
                .ingressEndpoints("0=" + member.host() + ":" + member.ingressPort())
                .egressChannel("aeron:udp?endpoint=127.0.0.1:0")
                .messageTimeoutNs(TimeScale.scaled(Duration.ofSeconds(10)).toNanos())
                .credentialsSupplier(credentials.get()));
    }
}
