package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tenure repair-log}: cuts a stopped lone node's log at the end of its last whole entry
 * before damage that lies at or after a position the operator names, accepting the loss of every
 * write from there on. A node does this by itself only past the position it knows it acknowledged
 * nothing after (see {@link RecoveryCheck}); past any other position it takes the operator's word.
 */
public final class LogRepair {
    private LogRepair() {}

    /**
     * Checks {@code dataDir} as a start would, cutting damage of the log at or after {@code
     * lossFrom}, while holding the directory's lock; returns the line that says what it did.
     * Throws {@code CorruptDataException} for damage it may not cut (before {@code lossFrom}, in
     * a snapshot nothing replaces, or in a log the node had finished writing).
     */
    // The lock is held for the body's length only: the body has no use for it.
    @SuppressWarnings("try")
    public static String run(Path dataDir, long lossFrom) throws IOException {
        if (!Files.isDirectory(dataDir)) {
            throw new IllegalArgumentException(
                    "no data directory " + dataDir.toAbsolutePath().normalize());
        }
        if (lossFrom < 0) {
            throw new IllegalArgumentException("--accept-loss-from must be a log position, 0 or more, was " + lossFrom);
        }
        try (DataDirLock lock = DataDirLock.acquire(dataDir)) {
            // What it dropped is the command's answer, not a log event: collected, then said once.
            List<String> said = new ArrayList<>();
            long end = RecoveryCheck.repair(dataDir, true, said::add, lossFrom);
            // The log now ends whole where it was cut: a start trusts no acknowledgement past it.
            AcknowledgedPosition.start(dataDir, end);
            String lines = String.join("\n", said).strip();
            return lines.isEmpty()
                    ? "the log and the snapshot it recovers from check out up to log position " + end
                            + ": nothing dropped"
                    : lines.replace("tenure: ", "") + "; the log now ends at log position " + end;
        }
    }
}
