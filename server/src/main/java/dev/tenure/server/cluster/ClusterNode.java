package dev.tenure.server.cluster;

import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.fatal.FatalErrors;
import dev.tenure.server.runtime.AdaptiveIdleStrategy;
import dev.tenure.server.runtime.AgentWakeup;
import dev.tenure.server.security.SecretChallengeAuthenticator;
import dev.tenure.server.storage.AcknowledgedPosition;
import dev.tenure.server.storage.CorruptDataException;
import dev.tenure.server.storage.RecoveryCheck;
import io.aeron.Aeron;
import io.aeron.RethrowingErrorHandler;
import io.aeron.archive.Archive;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ClusterControl;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.IoUtil;
import org.agrona.concurrent.NoOpLock;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Aeron Cluster member in this process: media driver, archive, consensus module and the
 * clustered service that hosts the state machine.
 *
 * <p>Durability: the archive syncs recorded log data and its catalog ({@code fileSyncLevel=1},
 * {@code catalogFileSyncLevel=1}) and the consensus module syncs its own files, so an entry the
 * cluster acknowledged survives {@code kill -9} and power loss of a majority.
 *
 * <p>CPU: driver, archive and consensus module share one thread ({@link ConsensusHost}); the
 * service and the gateway have their own. Every agent parks instead of spinning
 * ({@link AdaptiveIdleStrategy}): briefly while work is flowing, longer once the node is quiet,
 * so an idle node costs a few percent of one core; on 2 cores three nodes plus clients must fit.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);

    /**
     * How long a cluster client may stay silent before the consensus module ends its session (the
     * gateway sends a keepalive every second), and how long a client not yet admitted may take.
     */
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

    private final ConsensusHost host;
    private final ClusteredServiceContainer container;
    private final String aeronDir;
    private final AeronDirClaim claim;
    private final ReplicaView replica;
    private final LogRetention retention;
    private final AgentWakeup wakeup;

    private ClusterNode(
            ConsensusHost host,
            ClusteredServiceContainer container,
            String aeronDir,
            AeronDirClaim claim,
            ReplicaView replica,
            LogRetention retention,
            AgentWakeup wakeup) {
        this.host = host;
        this.wakeup = wakeup;
        this.container = container;
        this.aeronDir = aeronDir;
        this.claim = claim;
        this.replica = replica;
        this.retention = retention;
    }

    /**
     * Starts the member. Every error of its agents goes to {@code fatalErrors}, and so does the end of
     * each agent's thread: a member whose agent stopped commits nothing more, and only the node's
     * own close may stop one.
     */
    public static ClusterNode launch(
            ServerConfig config, Consumer<Cluster.Role> roleListener, FatalErrors fatalErrors) {
        String aeronDir = AeronContexts.aeronDirFor(config);
        // Claimed before the sweep: a sweep in another node's start must not take this directory
        // for a dead node's while this node's driver is starting in it.
        Path nodeDir = Objects.requireNonNull(
                Path.of(aeronDir).getParent(), "the driver's directory is inside the node's own");
        AeronDirClaim claim = AeronDirClaim.take(nodeDir);
        try {
            sweepDeadAeronDirs(nodeDir);
            return start(config, roleListener, fatalErrors, aeronDir, claim);
        } catch (RuntimeException e) {
            // A start refused before its driver ran (damaged data, say) leaves no empty directory
            // behind for the next start's sweep to report.
            claim.close();
            throw e;
        }
    }

    private static ClusterNode start(
            ServerConfig config,
            Consumer<Cluster.Role> roleListener,
            FatalErrors fatalErrors,
            String aeronDir,
            AeronDirClaim claim) {
        ErrorHandler errors = fatalErrors;
        ThreadFactory agentThreads = task -> new Thread(fatalErrors.watched(FatalCause.MEMBER_STOPPED, task));
        ServerConfig.Member self = config.self();
        ReplicaView replica = new ReplicaView(config.members().size(), config.watch(), config.requestTimeout());
        File base = config.dataDir().toAbsolutePath().toFile();
        String host = self.host();

        AgentWakeup wakeup = new AgentWakeup(config.members().size());
        replica.reads().wakeService(wakeup::readArrived);
        // Terms sized to the largest request these limits let in, for the log and every other
        // publication: the terms are most of the driver's shared memory, which the media driver
        // and each client in this process map again (docs/memory.md). A log recorded with other
        // terms (8 MiB, before they were sized) keeps them: the consensus module resumes a
        // recording with the term length its recording log holds, whatever the channel says,
        // and the archive refuses to extend one with any other.
        int termBytes = AeronContexts.termBytesFor(config.messageBytesMax());
        MediaDriver.Context driverCtx = AeronContexts.driverContext(aeronDir, errors)
                .publicationTermBufferLength(termBytes)
                .ipcTermBufferLength(termBytes)
                .asyncExecutorIdleStrategy(AdaptiveIdleStrategy.background(wakeup));
        Archive.Context archiveCtx = AeronContexts.archiveContext(config, aeronDir, errors);
        if (config.members().size() > 1
                && !new File(base, "cluster/" + RecordingLog.RECORDING_LOG_FILE_NAME).exists()) {
            // An empty member of a running cluster (new, or its data wiped) first copies the
            // latest snapshot and the log after it from a peer, then joins.
            if (MemberBootstrap.fromPeers(
                    config,
                    new File(base, "cluster"),
                    () -> AeronContexts.driverContext(aeronDir, fatalErrors::logged),
                    () -> AeronContexts.archiveContext(config, aeronDir, fatalErrors::logged),
                    fatalErrors::logged)) {
                LOG.info("tenure: empty data directory: copied the cluster's latest snapshot and the log"
                        + " after it from a peer");
            }
        }
        boolean lone = config.members().size() == 1;
        long logEnd = checkRecovery(base.toPath(), !lone);
        // A lone node keeps the position past which it acknowledged nothing, so that a torn end
        // of its log can be told from damage to acknowledged entries (see RecoveryCheck).
        AcknowledgedPosition acknowledged = lone ? AcknowledgedPosition.start(base.toPath(), logEnd) : null;

        AeronArchive.Context localArchive = AeronContexts.archiveClient(config)
                .lock(NoOpLock.INSTANCE)
                .controlRequestChannel(archiveCtx.localControlChannel())
                .controlRequestStreamId(archiveCtx.localControlStreamId())
                .controlResponseChannel(archiveCtx.localControlChannel())
                .aeronDirectoryName(aeronDir);

        ConsensusModule.Context consensusCtx = new ConsensusModule.Context()
                .clusterMemberId(self.id())
                .clusterMembers(AeronContexts.clusterMembers(config))
                .clusterDir(new File(base, "cluster"))
                .archiveContext(localArchive.clone())
                .serviceCount(1)
                .ingressChannel("aeron:udp?endpoint=" + host + ":" + self.ingressPort())
                // A lone member has no followers to send the log to: shared memory is enough,
                // and it saves the media driver's UDP send and receive on every entry.
                .logChannel((config.members().size() == 1 ? "aeron:ipc" : "aeron:udp") + "?term-length=" + termBytes)
                .replicationChannel("aeron:udp?endpoint=" + host + ":0")
                .clusterClock(MonotonicClusterClock.INSTANCE)
                .epochClock(MonotonicClusterClock.INSTANCE)
                .leaderHeartbeatTimeoutNs(config.leaderHeartbeatTimeout().toNanos())
                .leaderHeartbeatIntervalNs(config.leaderHeartbeatInterval().toNanos())
                // A candidate that has not heard from every member (the dead leader never
                // answers) waits out the whole election timeout before a majority makes it
                // leader, after a random nomination delay of up to half of it. Aeron's 1 s default
                // added 1-1.5 s to every failover (see BENCHMARKS.md, 'One node on a quiet
                // machine, idle CPU and failover'); 40% of the heartbeat timeout keeps the ballot
                // well above a loopback or LAN round trip.
                .electionTimeoutNs(config.leaderHeartbeatTimeout().toNanos() * 2 / 5)
                // A member that starts while a peer is down waits this long for it before an
                // election among those present (Aeron's default is a minute).
                .startupCanvassTimeoutNs(TimeUnit.SECONDS.toNanos(5))
                .sessionTimeoutNs(SESSION_TIMEOUT.toNanos())
                // The node's own gateway sends over shared memory: no UDP round trip through the
                // media driver's sender and receiver for every request.
                .isIpcIngressAllowed(true)
                .fileSyncLevel(1)
                .errorHandler(errors);
        if (config.clusterSecret() != null) {
            // Without it any process that reaches the ingress port could append to the log.
            consensusCtx.authenticatorSupplier(
                    SecretChallengeAuthenticator.supplier(config.clusterSecret(), SESSION_TIMEOUT));
        }

        ClusteredServiceContainer.Context serviceCtx = new ClusteredServiceContainer.Context()
                .aeronDirectoryName(aeronDir)
                .epochClock(MonotonicClusterClock.INSTANCE)
                .archiveContext(localArchive.clone())
                .clusterDir(new File(base, "cluster"))
                .clusteredService(new TenureClusteredService(
                        config.limits(),
                        base.toPath().resolve("archive"),
                        roleListener.andThen(role -> wakeup.roleChanged(role == Cluster.Role.LEADER)),
                        replica,
                        acknowledged == null ? position -> {} : acknowledged::advance))
                .serviceId(0)
                .idleStrategySupplier(() -> AdaptiveIdleStrategy.standard(wakeup, AgentWakeup.Hop.SERVICE))
                .threadFactory(agentThreads)
                .errorHandler(errors);

        // The consensus module (on its thread) and the service container (here) both create the
        // cluster directory on start; made beforehand, neither races the other's mkdir.
        IoUtil.ensureDirectoryExists(new File(base, "cluster"), "cluster");
        // The driver's background traffic (heartbeats, status messages) sets the hot window.
        ConsensusHost agents = ConsensusHost.launch(
                driverCtx,
                archiveCtx,
                consensusCtx,
                driver -> AdaptiveIdleStrategy.forConsensus(wakeup, driver),
                wakeup,
                errors,
                agentThreads);
        ClusteredServiceContainer container = null;
        Aeron serviceClient = null;
        try {
            // The service's Aeron client runs its conductor in the service's own duty cycle, not
            // on a thread of its own that would wake every few milliseconds on an idle node.
            serviceClient = Aeron.connect(AeronContexts.clientContext(aeronDir)
                    .useConductorAgentInvoker(true)
                    .clientName("clustered-service-0-0")
                    .errorHandler(errors)
                    // The container insists on this, as when it makes its own client.
                    .subscriberErrorHandler(RethrowingErrorHandler.INSTANCE)
                    .awaitingIdleStrategy(YieldingIdleStrategy.INSTANCE));
            container = ClusteredServiceContainer.launch(
                    serviceCtx.aeron(serviceClient).ownsAeronClient(true));
            agents.awaitStarted();
            LogRetention retention = new LogRetention(new File(base, "cluster"), localArchive.clone());
            return new ClusterNode(agents, container, aeronDir, claim, replica, retention, wakeup);
        } catch (RuntimeException e) {
            // The view's sending threads start with its first watch, which no failed start served;
            // closed here all the same, as on the node's close.
            CloseHelper.quietCloseAll(container, container == null ? serviceClient : null, agents, replica);
            throw e;
        }
    }

    /**
     * Removes what nodes killed on this machine left in shared memory, before this node adds its
     * own: nothing else would, and each holds about 83 MB of it.
     */
    private static void sweepDeadAeronDirs(Path own) {
        List<AeronDirSweep.Removed> removed = AeronDirSweep.sweep(
                Objects.requireNonNull(own.getParent(), "a node's directory is inside shared memory's"), own);
        if (!removed.isEmpty()) {
            long bytes =
                    removed.stream().mapToLong(AeronDirSweep.Removed::bytes).sum();
            LOG.info("tenure: removed " + removed.size() + " Aeron "
                    + (removed.size() == 1 ? "directory" : "directories") + " of nodes no longer running ("
                    + (bytes >> 20) + " MiB): "
                    + removed.stream().map(r -> r.dir().toString()).collect(Collectors.joining(", ")));
        }
    }

    /**
     * Checks every byte the member is about to recover from, before any part of it starts (see
     * {@link RecoveryCheck}); a damaged file that nothing can replace stops the start with the
     * line the operator needs.
     */
    private static long checkRecovery(Path dataDir, boolean hasPeers) {
        try {
            return RecoveryCheck.run(
                    dataDir,
                    true,
                    RecoveryCheck::logged,
                    hasPeers ? OptionalLong.empty() : AcknowledgedPosition.trusted(dataDir));
        } catch (CorruptDataException e) {
            throw e.withRemedy(remedy(hasPeers));
        }
    }

    /** What an operator can do about a member's damaged data file. */
    public static String remedy(boolean hasPeers) {
        return hasPeers
                ? "this member can be rebuilt from its peers: see docs/cluster.md#rebuilding-a-member-from-its-peers"
                : "a single node has no peers to rebuild it from: see docs/cluster.md#a-corrupt-or-unreadable-data-file";
    }

    /** What the node's gateway calls when it hands requests to the cluster. */
    public AgentWakeup wakeup() {
        return wakeup;
    }

    public String aeronDirectoryName() {
        return aeronDir;
    }

    public ReplicaView replica() {
        return replica;
    }

    /**
     * Asks the consensus module to take a snapshot (only a leader acts on it; followers take
     * theirs at the same log position). After it, a restart replays the log from the snapshot.
     */
    public boolean requestSnapshot() {
        AtomicCounter toggle = ClusterControl.findControlToggle(
                host.mediaDriver().context().countersManager(),
                host.consensusModule().context().clusterId());
        return toggle != null && ClusterControl.ToggleState.SNAPSHOT.toggle(toggle);
    }

    /** Snapshots this node has taken since it started. */
    public long snapshots() {
        return host.consensusModule().context().snapshotCounter().get();
    }

    /** Where this node can recover from (its oldest kept snapshot), reported to its peers. */
    public long recoveryPosition() {
        return retention.recoveryPosition();
    }

    /** Where this node's retained log starts (as of the last compaction). */
    public long logStartPosition() {
        return retention.logStartPosition();
    }

    /** Latest snapshot's log position on this node, or 0. */
    public long latestSnapshotPosition() {
        return retention.latestSnapshotPosition();
    }

    /**
     * Deletes log and snapshots that every member has moved past (blocking archive calls; call
     * from a housekeeping thread). Returns the bytes of log deleted.
     */
    public long compactLog() {
        return retention.compact(replica.retentionFloor());
    }

    @Override
    public void close() {
        try {
            // The service thread feeds the view's watches: the view's sending threads stop after it.
            CloseHelper.closeAll(retention, container, host, replica);
        } finally {
            // The driver removed its own directory; the owner-only one above it goes too, if empty.
            claim.close();
        }
    }
}
