package dev.tenure.server.storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            long end;
            try (PrintStream log = new PrintStream(said, true, StandardCharsets.UTF_8)) {
                end = RecoveryCheck.repair(dataDir, true, log, lossFrom);
            }
            // The log now ends whole where it was cut: a start trusts no acknowledgement past it.
            AcknowledgedPosition.start(dataDir, end);
            String lines = said.toString(StandardCharsets.UTF_8).strip();
            return lines.isEmpty()
                    ? "the log and the snapshot it recovers from check out up to log position " + end
                            + ": nothing dropped"
                    : lines.replace("tenure: ", "") + "; the log now ends at log position " + end;
        }
    }
}
