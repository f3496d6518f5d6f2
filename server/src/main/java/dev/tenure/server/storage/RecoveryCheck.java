package dev.tenure.server.storage;

import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.RecordingLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before the member starts, every byte it is about to recover from: the snapshot the
 * consensus module will load (its own and the state machine's) and the log it will replay after
 * it, exactly as Aeron's recovery plan picks them from {@code cluster/recording.log}. Nothing the
 * archive would replay passes unchecked, so a damaged file stops the start here with one line that
 * names it, instead of a replay that applies other bytes than the ones acknowledged, or fails
 * half-way and retries for ever.
 *
 * <p>A damaged snapshot is not the end: the log after the snapshot before it holds the same
 * state, and {@code LogRetention} keeps both for that reason. If that earlier snapshot and all the
 * log after it check out, the damaged one is set aside in the recording log
 * ({@link RecordingLog#invalidateLatestSnapshot()}, as Aeron's {@code ClusterTool
 * invalidate-latest-snapshot} does) and the member recovers from the earlier one. Damage in the
 * log itself has no such way round: every snapshot before it needs that log.
 *
 * <p>Except at its end, on a lone node: a node that died appending (its disk full, exit 15; or
 * {@code kill -9}) can leave a torn last entry, which no client was told of. When the node knows
 * the position past which it acknowledged nothing ({@link AcknowledgedPosition}) and the damage
 * lies past it, in a recording still open, the log is cut at the end of its last whole entry, and
 * the start says how many bytes went. Damage before that position is damage to acknowledged data:
 * the start stops, as before. A member with peers never cuts: what it appended may count towards
 * a majority that acknowledged it, and its peers hold what it lost.
 */
public final class RecoveryCheck {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryCheck.class);

    private static final int CONSENSUS_MODULE = ConsensusModule.Configuration.SERVICE_ID;
    private static final int STATE_MACHINE = 0;

    private final Path archiveDir;
    private final boolean checksums;
    private final Map<Long, ArchiveCatalog.Recording> catalog;
    private final OptionalLong acknowledged;
    private final Consumer<String> notes;
    /** An operator's repair: damage that is not cut is explained, not only named. */
    private boolean repair;

    private long logEnd;

    private RecoveryCheck(
            Path archiveDir,
            boolean checksums,
            Map<Long, ArchiveCatalog.Recording> catalog,
            OptionalLong acknowledged,
            Consumer<String> notes) {
        this.archiveDir = archiveDir;
        this.checksums = checksums;
        this.catalog = catalog;
        this.acknowledged = acknowledged;
        this.notes = notes;
    }

    /**
     * Checks what the member in {@code dataDir} will recover from; sets aside damaged snapshots
     * that an earlier one can replace, saying so to {@code notes} (a node passes {@link #logged}). Throws {@link
     * CorruptDataException} if what it would recover from is damaged and nothing can replace it.
     *
     * @param checksums whether the recordings carry frame checksums (every data directory of the
     *     current format does; see {@link DataFormat})
     */
    public static void run(Path dataDir, boolean checksums, Consumer<String> notes) {
        run(dataDir, checksums, notes, OptionalLong.empty());
    }

    /**
     * Logs a note of what a start's check did (a snapshot set aside, a torn tail cut) as a
     * warning: the node goes on, on less than it had, and the operator should know why.
     */
    public static void logged(String note) {
        LOG.warn(note);
    }

    /**
     * As above, for a lone node that acknowledged nothing past {@code acknowledged} (empty where
     * that is not known): a torn end of the log past it is cut off. Returns where the log it
     * will replay ends (0 if it has none).
     */
    public static long run(Path dataDir, boolean checksums, Consumer<String> notes, OptionalLong acknowledged) {
        return run(dataDir, checksums, notes, acknowledged, false);
    }

    private static long run(
            Path dataDir, boolean checksums, Consumer<String> notes, OptionalLong acknowledged, boolean repair) {
        Path clusterDir = dataDir.resolve("cluster");
        if (!Files.exists(clusterDir.resolve(RecordingLog.RECORDING_LOG_FILE_NAME))) {
            return 0; // nothing recorded yet: the member starts empty
        }
        Path archiveDir = dataDir.resolve("archive");
        RecoveryCheck check =
                new RecoveryCheck(archiveDir, checksums, ArchiveCatalog.read(archiveDir), acknowledged, notes);
        check.repair = repair;
        try (RecordingLog recordingLog = new RecordingLog(clusterDir.toFile(), false)) {
            check.run(recordingLog);
        }
        return check.logEnd;
    }

    /**
     * As a start checks, cutting damage of the log at the end of its last whole entry if that is
     * at or after {@code lossFrom}, which the operator accepts losing everything after ({@code
     * tenure repair-log}). Returns where the log now ends.
     */
    public static long repair(Path dataDir, boolean checksums, Consumer<String> notes, long lossFrom) {
        return run(dataDir, checksums, notes, OptionalLong.of(lossFrom), true);
    }

    /**
     * Tries, newest first, each snapshot with the log after it, then the whole log where it still
     * starts at 0: the first that checks out is what the member recovers from.
     */
    private void run(RecordingLog recordingLog) {
        List<SnapshotSet> snapshots = snapshotsNewestFirst(recordingLog.entries());
        RecordingLog.Entry term = lastTerm(recordingLog.entries());
        CorruptDataException newest = null;
        for (int i = 0; i <= snapshots.size(); i++) {
            long from = -1; // the start of the log
            if (i < snapshots.size()) {
                try {
                    checkSnapshot(snapshots.get(i));
                } catch (CorruptDataException e) {
                    newest = newest == null ? e : newest;
                    continue;
                }
                from = snapshots.get(i).logPosition();
            } else if (i > 0 && !logStartsAtZero(term)) {
                break; // older log deleted: there is nothing to replay from
            }
            try {
                checkLog(term, from);
            } catch (CorruptDataException e) {
                // Every earlier snapshot needs this log too, and any later one is damaged.
                throw newest == null
                        ? e
                        : newest.because("the snapshot before it cannot replace it: " + e.getMessage());
            }
            if (i > 0) {
                setAside(recordingLog, i);
                CorruptDataException damaged =
                        Objects.requireNonNull(newest, "a later try comes only after a damaged snapshot");
                notes.accept("tenure: corrupt data file: " + damaged.getMessage() + "; recovering from "
                        + (from < 0
                                ? "the start of the log"
                                : "the snapshot at log position " + from + " and the log after it")
                        + " instead (" + (i == 1 ? "the damaged snapshot is" : "the " + i + " newer snapshots are")
                        + " marked invalid in cluster/recording.log)");
            }
            return;
        }
        // Past the loop, every try failed on a damaged snapshot: the log's own damage throws above.
        throw Objects.requireNonNull(newest, "the loop ends only after a damaged snapshot")
                .because("no earlier snapshot with the log after it, nor the whole log, is there to recover from");
    }

    private boolean logStartsAtZero(RecordingLog.@Nullable Entry term) {
        return term != null
                && term.termBaseLogPosition == 0
                && recording(term, "the log").startPosition() == 0;
    }

    private void checkSnapshot(SnapshotSet set) {
        String where = "snapshot of log position " + set.logPosition();
        ArchiveCatalog.Recording consensus = recording(set.consensusModule(), where);
        RecordingWalk.check(
                archiveDir,
                consensus,
                consensus.startPosition(),
                checksums,
                p -> "consensus module " + where + ", recording " + consensus.recordingId() + " position " + p,
                EntryChecks.consensusModuleSnapshot());
        if (set.stateMachine() == null) {
            throw new CorruptDataException(
                    clusterDirOf(archiveDir).resolve(RecordingLog.RECORDING_LOG_FILE_NAME),
                    0,
                    where + ", entry " + set.consensusModule().entryIndex,
                    "the consensus module's snapshot entry has no state machine snapshot entry before it");
        }
        ArchiveCatalog.Recording service = recording(set.stateMachine(), where);
        EntryChecks.ServiceSnapshot entries = new EntryChecks.ServiceSnapshot();
        String serviceWhere = "state machine " + where + ", recording " + service.recordingId() + " position ";
        long end = RecordingWalk.check(
                archiveDir, service, service.startPosition(), checksums, p -> serviceWhere + p, entries);
        String missing = entries.missing();
        if (missing != null) {
            throw ArchiveCatalog.corruptAt(archiveDir, service, end, serviceWhere + end, missing);
        }
    }

    /** The log from {@code from} (-1: the start of its recording) to its end. */
    private void checkLog(RecordingLog.@Nullable Entry term, long from) {
        if (term == null) {
            return; // snapshots only (a copy from a peer whose live log has not begun): nothing to replay
        }
        ArchiveCatalog.Recording recording = recording(term, "the log");
        long start = from < 0 ? recording.startPosition() : from;
        try {
            logEnd = walkLog(recording, start);
        } catch (CorruptDataException damaged) {
            if (!dropTornTail(term, recording, start, damaged)) {
                throw damaged;
            }
            logEnd = walkLog(recording, start);
        }
    }

    private long walkLog(ArchiveCatalog.Recording recording, long start) {
        return RecordingWalk.check(
                archiveDir, recording, start, checksums, p -> "log position " + p, EntryChecks.log());
    }

    /**
     * Cuts the log at the end of its last whole entry if all that follows lies past the position
     * this lone node acknowledged, in the recording it was appending to; says so and returns true.
     */
    private boolean dropTornTail(
            RecordingLog.Entry term, ArchiveCatalog.Recording recording, long start, CorruptDataException damaged) {
        if (acknowledged.isEmpty()) {
            return false;
        }
        if (!recording.open()) {
            if (repair) {
                throw damaged.because(
                        "the node had finished writing this log, and only a log it was still writing" + " is cut");
            }
            return false;
        }
        long whole = RecordingWalk.wholeEnd(archiveDir, recording, start, checksums, EntryChecks.log());
        long acked = acknowledged.getAsLong();
        if (whole < acked || whole < term.termBaseLogPosition) {
            if (repair) {
                throw damaged.because(
                        whole < term.termBaseLogPosition
                                ? "the log's whole entries end at log position " + whole
                                        + ", before its last term, which" + " begins at " + term.termBaseLogPosition
                                        + ": it is not cut there"
                                : "the log's whole entries end at log position " + whole + ", before log position "
                                        + acked + ": --accept-loss-from " + whole + " accepts the loss from there");
            }
            return false;
        }
        long bytes = LogTail.drop(archiveDir, recording, whole);
        notes.accept((repair ? "tenure: damaged log tail dropped: " : "tenure: torn log tail dropped: ") + bytes
                + " bytes from log position " + whole
                + (repair
                        ? ", at or after log position " + acked + ", from which the loss was accepted"
                        : ", past log position " + acked + ", the last this node acknowledged")
                + " (" + damaged.getMessage() + ")");
        return true;
    }

    private ArchiveCatalog.Recording recording(RecordingLog.Entry entry, String what) {
        ArchiveCatalog.Recording r = catalog.get(entry.recordingId);
        if (r == null) {
            throw new CorruptDataException(
                    archiveDir.resolve("archive.catalog"),
                    0,
                    what + ", recording " + entry.recordingId,
                    "cluster/recording.log names a recording the archive catalog does not hold");
        }
        return r;
    }

    /** Marks the {@code count} newest snapshots invalid, so the consensus module loads the one after. */
    private static void setAside(RecordingLog recordingLog, int count) {
        for (int i = 0; i < count; i++) {
            recordingLog.invalidateLatestSnapshot();
        }
        recordingLog.force(1);
    }

    /**
     * Valid snapshots, newest first, as Aeron's recovery plan pairs them: a consensus module
     * snapshot entry and, just before it, the state machine's at the same position and term.
     */
    static List<SnapshotSet> snapshotsNewestFirst(List<RecordingLog.Entry> entries) {
        List<SnapshotSet> sets = new ArrayList<>();
        for (int i = entries.size() - 1; i >= 0; i--) {
            RecordingLog.Entry e = entries.get(i);
            if (!isSnapshot(e, CONSENSUS_MODULE)) {
                continue;
            }
            RecordingLog.Entry before = i > 0 ? entries.get(i - 1) : null;
            boolean paired = before != null
                    && isSnapshot(before, STATE_MACHINE)
                    && before.logPosition == e.logPosition
                    && before.leadershipTermId == e.leadershipTermId;
            // Aeron loads the newest consensus module snapshot whatever precedes it: one without
            // its pair is checked, and fails, like a damaged one.
            sets.add(new SnapshotSet(e, paired ? before : null));
        }
        return sets;
    }

    private static boolean isSnapshot(RecordingLog.Entry e, int serviceId) {
        return e.isValid && e.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && e.serviceId == serviceId;
    }

    private static Path clusterDirOf(Path archiveDir) {
        return archiveDir.resolveSibling("cluster");
    }

    private static RecordingLog.@Nullable Entry lastTerm(List<RecordingLog.Entry> entries) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            RecordingLog.Entry e = entries.get(i);
            if (e.isValid && e.type == RecordingLog.ENTRY_TYPE_TERM && e.recordingId != -1) {
                return e;
            }
        }
        return null;
    }

    record SnapshotSet(RecordingLog.Entry consensusModule, RecordingLog.@Nullable Entry stateMachine) {
        long logPosition() {
            return consensusModule.logPosition;
        }
    }
}
