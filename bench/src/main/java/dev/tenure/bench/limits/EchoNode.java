package dev.tenure.bench.limits;

import dev.tenure.core.Limits;
import dev.tenure.server.cluster.AeronContexts;
import dev.tenure.server.cluster.ConsensusHost;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.runtime.AdaptiveIdleStrategy;
import dev.tenure.server.storage.FrameChecksum;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.Header;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Aeron Cluster member whose service echoes every message back to its sender: the cost of
 * the replicated, fsynced log alone, with Tenure's state machine and gRPC taken out.
 *
 * <p>The configuration mirrors the server's {@code ClusterNode} setting for setting (driver,
 * archive and consensus module on one thread, the same idle strategies, term lengths, {@code fileSyncLevel=1} on archive,
 * catalog and consensus module, CRC-32C frame checksums recorded and checked on replay, IPC log on a lone member and IPC ingress), so the gap between this
 * and Tenure is Tenure's own. {@code ClusterNode} builds its service itself, hence the copy; keep
 * the two in step.
 */
final class EchoNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EchoNode.class);

    /** The log's term length as a node with the default limits sizes it. */
    private static final int TERM_LENGTH =
            AeronContexts.termBytesFor(ServerConfig.messageBytesMaxFor(Limits.defaults()));

    private final ConsensusHost driver;
    private final ClusteredServiceContainer container;
    private final String aeronDir;

    private EchoNode(ConsensusHost driver, ClusteredServiceContainer container, String aeronDir) {
        this.driver = driver;
        this.container = container;
        this.aeronDir = aeronDir;
    }

    String aeronDir() {
        return aeronDir;
    }

    static EchoNode launch(List<ServerConfig.Member> members, int id, Path dataDir, String aeronDir) {
        ServerConfig.Member self = members.get(id);
        String host = self.host();
        File base = dataDir.toAbsolutePath().toFile();
        MediaDriver.Context driverCtx = AeronContexts.driverContext(aeronDir, null);
        Archive.Context archiveCtx = new Archive.Context()
                .aeronDirectoryName(aeronDir)
                .archiveDir(new File(base, "archive"))
                .archiveId(id)
                .controlChannel("aeron:udp?endpoint=" + host + ":" + self.archivePort())
                .localControlChannel("aeron:ipc?term-length=64k")
                .replicationChannel("aeron:udp?endpoint=" + host + ":0")
                .archiveClientContext(
                        new AeronArchive.Context().controlResponseChannel("aeron:udp?endpoint=" + host + ":0"))
                .recordingEventsEnabled(false)
                .threadingMode(ArchiveThreadingMode.SHARED)
                .idleStrategySupplier(AdaptiveIdleStrategy::standard)
                .recordChecksum(FrameChecksum.CRC32C)
                .replayChecksum(FrameChecksum.CRC32C)
                .fileSyncLevel(1)
                .catalogFileSyncLevel(1);
        AeronArchive.Context localArchive = new AeronArchive.Context()
                .lock(NoOpLock.INSTANCE)
                .controlRequestChannel(archiveCtx.localControlChannel())
                .controlRequestStreamId(archiveCtx.localControlStreamId())
                .controlResponseChannel(archiveCtx.localControlChannel())
                .aeronDirectoryName(aeronDir);
        ConsensusModule.Context consensusCtx = new ConsensusModule.Context()
                .clusterMemberId(id)
                .clusterMembers(clusterMembers(members))
                .clusterDir(new File(base, "cluster"))
                .archiveContext(localArchive.clone())
                .serviceCount(1)
                .ingressChannel("aeron:udp?endpoint=" + host + ":" + self.ingressPort())
                .logChannel((members.size() == 1 ? "aeron:ipc" : "aeron:udp") + "?term-length=" + TERM_LENGTH)
                .replicationChannel("aeron:udp?endpoint=" + host + ":0")
                .leaderHeartbeatTimeoutNs(TimeUnit.SECONDS.toNanos(1))
                .leaderHeartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(100))
                .startupCanvassTimeoutNs(TimeUnit.SECONDS.toNanos(5))
                .sessionTimeoutNs(TimeUnit.SECONDS.toNanos(10))
                .isIpcIngressAllowed(true)
                .fileSyncLevel(1);
        ClusteredServiceContainer.Context serviceCtx = new ClusteredServiceContainer.Context()
                .aeronDirectoryName(aeronDir)
                .archiveContext(localArchive.clone())
                .clusterDir(new File(base, "cluster"))
                .clusteredService(new Echo())
                .serviceId(0)
                .idleStrategySupplier(AdaptiveIdleStrategy::standard);
        IoUtil.ensureDirectoryExists(new File(base, "cluster"), "cluster");
        ConsensusHost agents = ConsensusHost.launch(
                driverCtx,
                archiveCtx,
                consensusCtx,
                driver -> AdaptiveIdleStrategy.forDriver(),
                null,
                error -> LOG.error("echo node: Aeron error", error),
                Thread::new);
        ClusteredServiceContainer container = null;
        try {
            container = ClusteredServiceContainer.launch(serviceCtx);
            agents.awaitStarted();
            return new EchoNode(agents, container, aeronDir);
        } catch (RuntimeException e) {
            CloseHelper.quietCloseAll(container, agents);
            throw e;
        }
    }

    static String clusterMembers(List<ServerConfig.Member> members) {
        return members.stream()
                .map(m -> m.id() + "," + m.host() + ":" + m.ingressPort()
                        + "," + m.host() + ":" + m.consensusPort()
                        + "," + m.host() + ":" + m.logPort()
                        + "," + m.host() + ":" + m.catchupPort()
                        + "," + m.host() + ":" + m.archivePort())
                .collect(Collectors.joining("|"));
    }

    static String ingressEndpoints(List<ServerConfig.Member> members) {
        return members.stream()
                .map(m -> m.id() + "=" + m.host() + ":" + m.ingressPort())
                .collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        CloseHelper.closeAll(container, driver);
    }

    /** Sends every message back to the session it came from; only the leader's reply leaves the node. */
    private static final class Echo implements ClusteredService {
        private static final int OFFER_ATTEMPTS = 3;
        // Aeron calls onStart before any other callback of the service: the field is never read unset.
        @SuppressWarnings("NullAway.Init")
        private IdleStrategy idle;

        @Override
        public void onStart(Cluster cluster, Image snapshotImage) {
            idle = cluster.idleStrategy();
        }

        @Override
        public void onSessionMessage(
                ClientSession session, long timestamp, DirectBuffer buffer, int offset, int length, Header header) {
            for (int attempt = 0; attempt < OFFER_ATTEMPTS; attempt++) {
                if (session.offer(buffer, offset, length) > 0) {
                    return;
                }
                idle.idle();
            }
        }

        @Override
        public void onSessionOpen(ClientSession session, long timestamp) {}

        @Override
        public void onSessionClose(ClientSession session, long timestamp, CloseReason closeReason) {}

        @Override
        public void onTimerEvent(long correlationId, long timestamp) {}

        @Override
        public void onTakeSnapshot(ExclusivePublication snapshotPublication) {}

        @Override
        public void onRoleChange(Cluster.Role newRole) {}

        @Override
        public void onTerminate(Cluster cluster) {}
    }
}
