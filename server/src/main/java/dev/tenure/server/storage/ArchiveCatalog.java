package dev.tenure.server.storage;

import io.aeron.archive.CatalogView;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.client.RecordingDescriptorConsumer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What the archive's catalog says about its recordings, and where a position of a recording lies
 * in the archive's segment files. Read-only, like the walk of a recording's frames
 * ({@link RecordingWalk}) that uses it.
 */
public final class ArchiveCatalog {
    private ArchiveCatalog() {}

    private static final long NULL_POSITION = -1;

    /** An archive segment file's name: the recording id and the position the file starts at. */
    static final String SEGMENT_SUFFIX = ".rec";

    /** What the archive's catalog says about one recording. */
    public record Recording(
            long recordingId,
            long startPosition,
            long stopPosition,
            int termLength,
            int segmentLength,
            int initialTermId,
            int streamId) {

        /** No stop position: the archive was stopped while recording, and finds the end on its next start. */
        public boolean open() {
            return stopPosition == NULL_POSITION;
        }

        /** Hands each descriptor an archive lists (live, or from its catalog file) to {@code sink}. */
        public static RecordingDescriptorConsumer into(Consumer<Recording> sink) {
            return (controlSessionId,
                    correlationId,
                    recordingId,
                    startTimestamp,
                    stopTimestamp,
                    startPosition,
                    stopPosition,
                    initialTermId,
                    segmentFileLength,
                    termBufferLength,
                    mtuLength,
                    sessionId,
                    streamId,
                    strippedChannel,
                    originalChannel,
                    sourceIdentity) -> sink.accept(new Recording(
                    recordingId,
                    startPosition,
                    stopPosition,
                    termBufferLength,
                    segmentFileLength,
                    initialTermId,
                    streamId));
        }
    }

    /** Every recording the catalog file in {@code archiveDir} lists, by id; none without a catalog. */
    static SortedMap<Long, Recording> read(Path archiveDir) {
        SortedMap<Long, Recording> recordings = new TreeMap<>();
        if (Files.exists(archiveDir.resolve("archive.catalog"))) {
            CatalogView.listRecordings(archiveDir.toFile(), Recording.into(r -> recordings.put(r.recordingId(), r)));
        }
        return recordings;
    }

    /** The segment file that holds {@code position} of {@code recording}. */
    public static Path segmentFile(Path archiveDir, Recording recording, long position) {
        long base = AeronArchive.segmentFileBasePosition(
                recording.startPosition(), position, recording.termLength(), recording.segmentLength());
        return archiveDir.resolve(recording.recordingId() + "-" + base + SEGMENT_SUFFIX);
    }

    /** Damage found at {@code position} of {@code recording} by a check of its entries as a whole. */
    public static CorruptDataException corruptAt(
            Path archiveDir, Recording recording, long position, String where, String reason) {
        long base = AeronArchive.segmentFileBasePosition(
                recording.startPosition(), position, recording.termLength(), recording.segmentLength());
        return new CorruptDataException(segmentFile(archiveDir, recording, position), position - base, where, reason);
    }
}
