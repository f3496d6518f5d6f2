package dev.tenure.server.guard;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Refuses the writes that carry bytes (KV puts, checkpoints) while the data directory's file
 * system nears the archive's floor. The log is written through memory-mapped files: a file system
 * that fills under an append faults the thread that writes, ends the node (status 15) and can
 * leave a torn last frame, which the next start's integrity check refuses. Stopping the large
 * writes first keeps the node up and its log whole; what little else is logged (acquires,
 * keepalives, deletes, which free room in the next snapshot) goes on in the headroom. The next
 * snapshots need room too, as much as the state's bytes each (the latest is written before the
 * one before it may go), so the threshold grows with the state.
 */
public final class DiskGuard {
    /** Room kept free above the floor for the commands that are not refused. */
    static final long HEADROOM_BYTES = 64L << 20;

    private final Path dataDir;
    private final long floorBytes;
    private final LongSupplier stateBytes;
    private volatile @Nullable String refusal;

    /** @param stateBytes the bytes a snapshot of the replicated state holds, about */
    public DiskGuard(Path dataDir, long floorBytes, LongSupplier stateBytes) {
        this.dataDir = dataDir.toAbsolutePath().normalize();
        this.floorBytes = floorBytes;
        this.stateBytes = stateBytes;
    }

    /** Why a write that carries bytes is refused now, or null while the file system has room. */
    public @Nullable String refusal() {
        return refusal;
    }

    /** Reads the free space again; called once a second. */
    public void tick() {
        try {
            FileStore store = Files.getFileStore(dataDir);
            long usable = store.getUsableSpace();
            long needed = floorBytes + HEADROOM_BYTES + 2 * stateBytes.getAsLong();
            refusal = usable > needed
                    ? null
                    : String.format(
                            Locale.ROOT,
                            "disk: the data directory %s has %.1f MiB free; KV writes and checkpoints are refused under"
                                    + " %.1f MiB (the archive's floor, room for two snapshots and %d MiB for other"
                                    + " commands)",
                            dataDir,
                            usable / 1048576.0,
                            needed / 1048576.0,
                            HEADROOM_BYTES >> 20);
        } catch (IOException e) {
            // The health says the directory cannot be read; the refusal stays as it was.
        }
    }
}
