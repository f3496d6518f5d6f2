package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Refuses a data directory whose file system has too little free space for the log to be
 * recorded. Aeron's archive refuses to record the log at or below its low storage threshold; the
 * node would then start, say it serves, and answer every request "no cluster leader reachable"
 * while only Aeron's error log said why. Checked before anything starts, it is one line instead.
 */
public final class DataDirSpace {
    private DataDirSpace() {}

    /** Throws unless {@code dataDir}'s file system has more than {@code floorBytes} usable. */
    public static void require(Path dataDir, long floorBytes) throws IOException {
        Path where = dataDir.toAbsolutePath().normalize();
        FileStore store = Files.getFileStore(where);
        long usable = store.getUsableSpace();
        if (usable <= floorBytes) {
            throw new IOException("data directory " + where + " has " + mib(usable) + " free on its file system ("
                    + store.name() + "); the log is recorded only with more than " + mib(floorBytes)
                    + " free (aeron.archive.low.storage.space.threshold)");
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
