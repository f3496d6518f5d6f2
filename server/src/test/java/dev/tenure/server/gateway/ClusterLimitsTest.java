package dev.tenure.server.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.core.Limits;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TenureServer;
import dev.tenure.server.TestPorts;
import dev.tenure.server.TestTimings;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limits are the cluster's, held in its log: a member given other ones ends naming both
 * values instead of deciding under its own, and a restart under lowered limits replays every
 * acknowledged write as it was decided.
 */
class ClusterLimitsTest {
    private static final Limits TEN_KEYS = Limits.defaults().with("kvKeysMax", 10);
    private static final Limits FIVE_KEYS = Limits.defaults().with("kvKeysMax", 5);

    private final RecordedFatals fatals = new RecordedFatals();
    private final List<TenureServer> servers = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private Path data;

    @AfterEach
    void closeAll() throws Exception {
        channels.forEach(ManagedChannel::shutdownNow);
        closeServers();
        if (data != null) {
            Dirs.deleteTree(data);
        }
    }

    @Test
    void aMemberGivenOneDifferentLimitEndsNamingBothValuesWhileItsPeersServe() throws Exception {
        data = Files.createTempDirectory("tenure-test-limits-");
        List<ServerConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(new ServerConfig.Member(
                    i, "127.0.0.1", LoopbackPorts.freeTcpPort(), TestPorts.freeAeronPortBase()));
        }
        for (int i = 0; i < 2; i++) {
            servers.add(TenureServer.start(member(i, members), fatals));
        }
        for (TenureServer s : servers) {
            awaitHealthy(s);
        }
        TenureServer odd =
                TenureServer.start(member(2, members).withLimits(FIVE_KEYS).withHeapCheck(false), fatals);
        servers.add(odd);

        Await.atMost(Duration.ofSeconds(30)).until("node 2 ends", fatals::lines, lines -> !lines.isEmpty());
        assertThat(fatals.lines())
                .containsExactly("tenure: fatal: limits differ from the cluster's (exit 2): node 2 was given limits"
                        + " that differ from the cluster's: kvKeysMax: node 2 has 5, the cluster 50000"
                        + " (docs/memory.md, 'Changing limits on a node that holds data')");
        // It wrote no client's command meanwhile: every call is refused before the log.
        assertThatThrownBy(() -> stub(odd).kvPut(put("k")))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
                .hasMessageContaining("node 2 has not yet agreed its limits with the cluster");
        for (TenureServer peer : servers.subList(0, 2)) {
            assertThat(peer.status().getHealth()).isEqualTo("ok");
        }
        assertThat(stub(servers.get(0)).kvPut(put("k")).getCode()).isEqualTo(Code.CODE_OK);
    }

    /**
     * Eight acknowledged writes under kvKeysMax=10; a restart with 5 replays them all (the log's
     * limits decide), then refuses to serve under other limits than the cluster's; --change-limits
     * cannot lower the limit below what the state holds; and the node given 10 again serves every
     * acknowledged write.
     */
    @Test
    void aRestartWithALoweredLimitKeepsEveryAcknowledgedWriteAndSaysWhyItWillNotServe() throws Exception {
        data = Files.createTempDirectory("tenure-test-limits-");
        ServerConfig.Member self =
                new ServerConfig.Member(0, "127.0.0.1", LoopbackPorts.freeTcpPort(), TestPorts.freeAeronPortBase());
        TenureServer first = start(self, TEN_KEYS, false);
        for (int i = 1; i <= 8; i++) {
            assertThat(stub(first).kvPut(put("k" + i)).getCode()).isEqualTo(Code.CODE_OK);
        }
        closeServers();

        TenureServer lowered = start(self, FIVE_KEYS, false);
        assertThat(fatals.lines())
                .containsExactly("tenure: fatal: limits differ from the cluster's (exit 2): node 0 was given limits"
                        + " that differ from the cluster's: kvKeysMax: node 0 has 5, the cluster 10"
                        + " (docs/memory.md, 'Changing limits on a node that holds data')");
        assertThatThrownBy(() -> stub(lowered).kvGet(get("k1")))
                .hasMessageContaining("UNAVAILABLE: node 0 has not yet agreed its limits with the cluster");
        closeServers();

        start(self, FIVE_KEYS, true);
        assertThat(fatals.lines().get(1))
                .isEqualTo("tenure: fatal: limits differ from the cluster's (exit 2): node 0's limits (kvKeysMax:"
                        + " node 0 has 5, the cluster 10) hold less than the state already does: 8 keys over"
                        + " kvKeysMax; nothing changed"
                        + " (docs/memory.md, 'Changing limits on a node that holds data')");
        closeServers();

        TenureServer again = start(self, TEN_KEYS, false);
        for (int i = 1; i <= 8; i++) {
            assertThat(stub(again).kvGet(get("k" + i)).getValue().toStringUtf8())
                    .isEqualTo("v");
        }
        assertThat(stub(again).kvPut(put("k9")).getCode()).isEqualTo(Code.CODE_OK);
        assertThat(stub(again).kvPut(put("k10")).getCode()).isEqualTo(Code.CODE_OK);
        // Refused before the log: the node's view of its replica shows the KV full.
        assertThatThrownBy(() -> stub(again).kvPut(put("k11")))
                .hasMessageStartingWith("RESOURCE_EXHAUSTED: kvKeysMax (10) reached");
        assertThat(fatals.lines()).hasSize(2);
    }

    private TenureServer start(ServerConfig.Member self, Limits limits, boolean change) throws Exception {
        ServerConfig config = ServerConfig.member(0, List.of(self), data, LoopbackPorts.freeTcpPort())
                .with(TestTimings::apply)
                .withLimits(limits)
                .withHeapCheck(false)
                .withChangeLimits(change);
        TenureServer server = TenureServer.start(config, fatals);
        servers.add(server);
        return server;
    }

    private ServerConfig member(int id, List<ServerConfig.Member> members) {
        return ServerConfig.member(id, members, data.resolve("node-" + id), LoopbackPorts.freeTcpPort())
                .with(TestTimings::apply);
    }

    private void closeServers() {
        servers.forEach(TenureServer::close);
        servers.clear();
    }

    private static void awaitHealthy(TenureServer server) throws InterruptedException {
        Await.atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(50))
                .until("node on port " + server.port() + " healthy", server::status, s -> "ok".equals(s.getHealth()));
    }

    private TenureGrpc.TenureBlockingStub stub(TenureServer server) {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
        channels.add(channel);
        return TenureGrpc.newBlockingStub(channel)
                .withDeadlineAfter(TimeScale.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
    }

    private static KvPutRequest put(String key) {
        return KvPutRequest.newBuilder()
                .setKey(key)
                .setValue(ByteString.copyFromUtf8("v"))
                .build();
    }

    private static KvGetRequest get(String key) {
        return KvGetRequest.newBuilder().setKey(key).build();
    }
}
