package dev.tenure.server.storage;

/**
 * How the state machine's snapshot sits in its snapshot recording, after the entries of Aeron's
 * service container: a header entry of {@link #HEADER_BYTES} (the {@link #HEADER_MAGIC} and the
 * snapshot's total length), then the snapshot's bytes in entries of at most {@link #CHUNK_BYTES}.
 * Written and read by {@code SnapshotTransfer}; checked at start by {@link RecoveryCheck}.
 */
public final class ServiceSnapshotLayout {

    public static final int HEADER_MAGIC = 0x54534e50; // "TSNP"
    public static final int HEADER_BYTES = 8;
    public static final int CHUNK_BYTES = 32 * 1024;

    private ServiceSnapshotLayout() {}
}
