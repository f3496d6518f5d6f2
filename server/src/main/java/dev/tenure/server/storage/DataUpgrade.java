package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/** {@code tenure upgrade-data}: brings a stopped node's data directory to the current format. */
public final class DataUpgrade {
    private DataUpgrade() {}

    /**
     * Upgrades {@code dataDir} (see {@link DataFormat#upgrade}) while holding its lock, so no node
     * runs on it meanwhile; returns the line that says what it did. What its checks set aside on
     * the way (see {@link RecoveryCheck}) goes to {@code notes}: the command's own report.
     */
    // The lock is held for the body's length only: the body has no use for it.
    @SuppressWarnings("try")
    public static String run(Path dataDir, Consumer<String> notes) throws IOException {
        if (!Files.isDirectory(dataDir)) {
            throw new IllegalArgumentException(
                    "no data directory " + dataDir.toAbsolutePath().normalize());
        }
        try (DataDirLock lock = DataDirLock.acquire(dataDir)) {
            return DataFormat.upgrade(dataDir, notes);
        }
    }
}
