package dev.tenure.server.cluster;

import dev.tenure.server.storage.ArchiveCatalog;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.client.ArchiveException;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import java.io.File;
import java.util.List;
import java.util.TreeSet;
import org.agrona.CloseHelper;
import org.jspecify.annotations.Nullable;

/**
 * Keeps this node's archive bounded: deletes log segments and snapshot recordings that no
 * member can need any more.
 *
 * <p>What may go: a member recovers from its oldest kept snapshot ({@link #KEPT_SNAPSHOTS}
 * generations, so a damaged latest snapshot can be invalidated and the one before used) plus
 * the log after it, and a member that lags catches up by replicating the leader's log from
 * where its own ends. So log before the lowest recovery position that every member has reported
 * through the log (see {@link ReplicaView#retentionFloor()}) is needed by nobody; while any
 * member has not reported since this node started, nothing is deleted. Log is deleted in whole
 * archive segments, so up to one segment before the floor stays.
 *
 * <p>Runs on one caller thread (the node's housekeeping thread), never on a cluster agent: the
 * archive calls block.
 */
final class LogRetention implements AutoCloseable {

    static final int KEPT_SNAPSHOTS = 2;

    private final File clusterDir;
    private final AeronArchive.Context archiveContext;
    private @Nullable AeronArchive archive; // connected on first use
    private volatile long logStartPosition;
    private volatile long recoveryPosition;

    LogRetention(File clusterDir, AeronArchive.Context archiveContext) {
        this.clusterDir = clusterDir;
        this.archiveContext = archiveContext;
    }

    /** Where this node can recover from: its oldest kept snapshot, or 0 (the whole log). */
    long recoveryPosition() {
        List<RecordingLog.Entry> snapshots = snapshots();
        TreeSet<Long> positions = new TreeSet<>();
        for (RecordingLog.Entry e : snapshots) {
            positions.add(e.logPosition);
        }
        long position = positions.size() < KEPT_SNAPSHOTS
                ? 0
                : positions.descendingSet().stream()
                        .skip(KEPT_SNAPSHOTS - 1)
                        .findFirst()
                        .orElse(0L);
        recoveryPosition = position;
        return position;
    }

    /** Latest snapshot position this node holds, or 0. */
    long latestSnapshotPosition() {
        return snapshots().stream().mapToLong(e -> e.logPosition).max().orElse(0);
    }

    long logStartPosition() {
        return logStartPosition;
    }

    /**
     * Deletes what lies wholly before {@code floor} (a position every member can recover from)
     * and before this node's own recovery position. Returns the bytes of log deleted.
     */
    long compact(long floor) {
        long own = recoveryPosition();
        long limit = Math.min(floor, own);
        RecordingLog.Entry lastTerm = lastTerm();
        if (lastTerm == null) {
            return 0;
        }
        AeronArchive archive = archive();
        long recordingId = lastTerm.recordingId;
        ArchiveCatalog.Recording[] descriptor = new ArchiveCatalog.Recording[1];
        int found = archive.listRecording(recordingId, ArchiveCatalog.Recording.into(r -> descriptor[0] = r));
        if (found == 0) {
            return 0;
        }
        long start = descriptor[0].startPosition();
        logStartPosition = start;
        if (limit <= start) {
            return 0;
        }
        long newStart = AeronArchive.segmentFileBasePosition(
                start, limit, descriptor[0].termLength(), descriptor[0].segmentLength());
        long deleted = 0;
        if (newStart > start) {
            archive.purgeSegments(recordingId, newStart);
            logStartPosition = newStart;
            deleted = newStart - start;
        }
        purgeSnapshotsBefore(limit);
        return deleted;
    }

    private void purgeSnapshotsBefore(long position) {
        for (RecordingLog.Entry e : snapshots()) {
            if (e.logPosition < position) {
                try {
                    archive().purgeRecording(e.recordingId);
                } catch (ArchiveException alreadyGone) {
                    // Purged on an earlier pass: the recording log keeps naming it.
                }
            }
        }
    }

    private List<RecordingLog.Entry> snapshots() {
        try (RecordingLog log = open()) {
            if (log == null) {
                return List.of();
            }
            return log.entries().stream()
                    .filter(e -> e.isValid && e.type == RecordingLog.ENTRY_TYPE_SNAPSHOT)
                    .filter(e -> e.serviceId == ConsensusModule.Configuration.SERVICE_ID || e.serviceId == 0)
                    .toList();
        }
    }

    private RecordingLog.@Nullable Entry lastTerm() {
        try (RecordingLog log = open()) {
            return log == null ? null : log.findLastTerm();
        }
    }

    /** The consensus module owns the recording log; this only reads it, as Aeron's tools do. */
    private @Nullable RecordingLog open() {
        if (!new File(clusterDir, RecordingLog.RECORDING_LOG_FILE_NAME).exists()) {
            return null;
        }
        return new RecordingLog(clusterDir, false);
    }

    private AeronArchive archive() {
        if (archive == null) {
            archive = AeronArchive.connect(archiveContext
                    .clone()
                    .aeron(AeronContexts.connectClient(archiveContext.aeronDirectoryName()))
                    .ownsAeronClient(true));
        }
        return archive;
    }

    long reportedRecoveryPosition() {
        return recoveryPosition;
    }

    @Override
    public void close() {
        CloseHelper.close(archive);
        archive = null;
    }
}
