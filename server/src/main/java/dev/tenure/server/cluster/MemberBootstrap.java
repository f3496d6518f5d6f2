package dev.tenure.server.cluster;

import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.security.SecretChallengeCredentials;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchivingMediaDriver;
import io.aeron.cluster.ClusterBackup;
import io.aeron.cluster.ClusterBackupEventsListener;
import io.aeron.cluster.ClusterMember;
import io.aeron.cluster.RecordingLog;
import io.aeron.driver.MediaDriver;
import java.io.File;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.agrona.ErrorHandler;
import org.agrona.IoUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings an empty member of a running cluster up to date before it joins: Aeron's cluster
 * backup copies the peers' latest snapshot and then records the live log after it into this
 * member's own archive and recording log, the same layout a member recovers from. A member
 * that joined with an empty log would instead need every peer to keep the whole log since the
 * cluster began, which {@link LogRetention} does not.
 *
 * <p>When no peer answers within {@link #ANSWER_TIMEOUT_NS} (the whole cluster is starting for the
 * first time, or no quorum is up), the member starts empty, as a new cluster's members do. A
 * member started with {@code --join} knows its cluster already holds data, so it keeps waiting
 * for a peer instead: started together with its peers after a restart of the whole cluster, it
 * is copied as soon as they have elected a leader.
 */
final class MemberBootstrap {
    private static final Logger LOG = LoggerFactory.getLogger(MemberBootstrap.class);

    /** How long an empty member waits for a peer to answer before it starts empty. */
    private static final long ANSWER_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(4);

    /** How often a joining member that still has no peer says so. */
    private static final long NOTICE_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    /** How long the copy of the snapshot and the first live log may take once a peer answered. */
    private static final long COPY_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(120);

    private MemberBootstrap() {}

    /** Returns true if the member's directories now hold a copy from a peer. */
    // The driver runs for the body's length, which has no other use for it; the backup is closed
    // early, before the directory it writes into is deleted (its second close does nothing).
    @SuppressWarnings("try")
    static boolean fromPeers(
            ServerConfig config,
            File clusterDir,
            Supplier<MediaDriver.Context> driver,
            Supplier<Archive.Context> archive,
            ErrorHandler errors) {
        Progress progress = new Progress();
        Archive.Context archiveCtx = archive.get();
        try (ArchivingMediaDriver media = ArchivingMediaDriver.launch(driver.get(), archiveCtx);
                ClusterBackup backup = ClusterBackup.launch(
                        backupContext(config, clusterDir, archiveCtx, progress).errorHandler(errors))) {
            long start = System.nanoTime();
            long nextNotice = start + NOTICE_INTERVAL_NS;
            while (!progress.answered()) {
                long now = System.nanoTime();
                if (config.join() && now - nextNotice > 0) {
                    nextNotice = now + NOTICE_INTERVAL_NS;
                    LOG.info("tenure: empty data directory and --join: still waiting for a peer to copy"
                            + " the cluster's snapshot and log from");
                }
                if (!config.join() && now - start > ANSWER_TIMEOUT_NS) {
                    backup.close();
                    IoUtil.delete(clusterDir, true);
                    return false;
                }
                sleep();
            }
            long answeredAt = System.nanoTime();
            while (!progress.copied()) {
                if (System.nanoTime() - answeredAt > COPY_TIMEOUT_NS) {
                    throw new IllegalStateException("copying the cluster's snapshot and log from a peer did not finish"
                            + " within " + TimeUnit.NANOSECONDS.toSeconds(COPY_TIMEOUT_NS) + " s");
                }
                sleep();
            }
            return true;
        }
    }

    private static ClusterBackup.Context backupContext(
            ServerConfig config, File clusterDir, Archive.Context archiveCtx, Progress progress) {
        ServerConfig.Member self = config.self();
        String host = self.host();
        String peers = config.members().stream()
                .filter(m -> m.id() != self.id())
                .map(m -> m.host() + ":" + m.consensusPort())
                .collect(Collectors.joining(","));
        ClusterBackup.Context ctx = new ClusterBackup.Context()
                .aeronDirectoryName(archiveCtx.aeronDirectoryName())
                .epochClock(MonotonicClusterClock.INSTANCE)
                .clusterDir(clusterDir)
                .deleteDirOnStart(true)
                // This member's consensus port is free until it joins: the peers answer there.
                .consensusChannel("aeron:udp?endpoint=" + host + ":" + self.consensusPort())
                .clusterConsensusEndpoints(peers)
                .catchupEndpoint(host + ":0")
                .sourceType(ClusterBackup.SourceType.ANY)
                // Peers keep log only from their oldest kept snapshots on: the copy starts at the
                // latest snapshot, and the log is recorded on from there without a gap.
                .initialReplayStart(ClusterBackup.Configuration.ReplayStart.LATEST_SNAPSHOT)
                .clusterBackupResponseTimeoutNs(TimeUnit.SECONDS.toNanos(2))
                .clusterBackupCoolDownIntervalNs(TimeUnit.MILLISECONDS.toNanos(500))
                .archiveContext(AeronContexts.archiveClient(config)
                        .aeronDirectoryName(archiveCtx.aeronDirectoryName())
                        .controlRequestChannel(archiveCtx.localControlChannel())
                        .controlRequestStreamId(archiveCtx.localControlStreamId())
                        .controlResponseChannel(archiveCtx.localControlChannel()))
                .clusterArchiveContext(AeronContexts.archiveClient(config)
                        .aeronDirectoryName(archiveCtx.aeronDirectoryName())
                        .controlRequestChannel("aeron:udp?endpoint=" + host + ":" + self.archivePort())
                        .controlResponseChannel("aeron:udp?endpoint=" + host + ":0"))
                .eventsListener(progress);
        if (config.clusterSecret() != null) {
            // A backup query is a cluster client too: the peers' consensus modules challenge it.
            ctx.credentialsSupplier(new SecretChallengeCredentials(config.clusterSecret()));
        }
        return ctx;
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while copying from a peer", e);
        }
    }

    /** The backup's milestones, written by its agent thread. */
    private static final class Progress implements ClusterBackupEventsListener {
        private volatile boolean answered;
        private volatile boolean recordingLogWritten;
        private volatile long snapshotPosition;
        private volatile boolean liveLogRecorded;

        boolean answered() {
            return answered;
        }

        boolean copied() {
            return recordingLogWritten && liveLogRecorded;
        }

        @Override
        public void onBackupQuery() {}

        @Override
        public void onPossibleFailure(Exception ex) {}

        @Override
        public void onBackupResponse(
                ClusterMember[] clusterMembers,
                ClusterMember logSourceMember,
                List<RecordingLog.Snapshot> snapshotsToRetrieve) {
            answered = true;
        }

        @Override
        public void onUpdatedRecordingLog(RecordingLog recordingLog, List<RecordingLog.Snapshot> snapshotsRetrieved) {
            for (RecordingLog.Snapshot s : snapshotsRetrieved) {
                snapshotPosition = Math.max(snapshotPosition, s.logPosition());
            }
            recordingLogWritten = true;
        }

        @Override
        public void onLiveLogProgress(long recordingId, long recordingPosCounterId, long logPosition) {
            // The copy is usable once the local log reaches the copied snapshot: from there the
            // member replays its own log and catches up the rest like any follower.
            if (recordingLogWritten && logPosition >= snapshotPosition) {
                liveLogRecorded = true;
            }
        }
    }
}
