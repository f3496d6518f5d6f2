package dev.tenure.server.cluster;

import dev.tenure.core.Usage;
import dev.tenure.gateway.WatchHub;
import dev.tenure.server.config.WatchLimits;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What this node's replica has applied, published by the service thread after every apply for
 * other threads to read. It is not a linearizable read (those go through {@link #reads()}); it shows
 * whether this replica has caught up with the others, and how far back each member's own
 * recovery reaches (its latest snapshot), which bounds how much log may be deleted.
 */
public final class ReplicaView implements AutoCloseable {

    private static final long UNKNOWN = -1;
    private static final int WATCH_SENDING_THREADS = 2;

    private final AtomicLongArray memberSnapshotPositions;
    private volatile long lastToken;
    private volatile long logPosition;
    private volatile Digest digest = new Digest(0, 0);
    private volatile Usage usage = new Usage(0, 0, 0, 0, 0, 0, 0);
    private final KvView kv = new KvView();
    private final Backups backups = new Backups();
    private final ReadIndex reads;
    private final WatchHub watch;
    /**
     * Sends watches' changes: a few threads, never the service thread, so a watcher's stream costs
     * the log's apply nothing but a wake-up.
     */
    private final ExecutorService watchSending;

    private volatile long revision;

    /** A digest of the whole replicated state, as the service thread took it right after applying {@code logPosition}. */
    public record Digest(long logPosition, long value) {}

    /**
     * A view of a cluster of {@code memberCount} members, with {@code limits} for this node's
     * watches; a read that no entry proves current within {@code readTimeout} fails (see {@link
     * ReadIndex}). The view owns the threads that send its watches' changes and its reads' answers:
     * {@link #close} stops them, with the node.
     */
    public ReplicaView(int memberCount, WatchLimits limits, java.time.Duration readTimeout) {
        this.reads = new ReadIndex(readTimeout.toNanos());
        this.watchSending = Executors.newFixedThreadPool(WATCH_SENDING_THREADS, task -> {
            Thread t = new Thread(task, "tenure-watch");
            t.setDaemon(true);
            return t;
        });
        this.watch = new WatchHub(limits.watchersMax(), limits.revisionsKeptMax(), this::send);
        memberSnapshotPositions = new AtomicLongArray(memberCount);
        for (int i = 0; i < memberCount; i++) {
            memberSnapshotPositions.set(i, UNKNOWN);
        }
    }

    /** Who hears what the replica applies (the node's metrics); set once the node has them. */
    private volatile ReplicaListener listener = ReplicaListener.NONE;

    /** From now on, {@code listener} hears what the replica applies (see {@link ReplicaListener}). */
    public void listen(ReplicaListener listener) {
        this.listener = listener;
    }

    ReplicaListener listener() {
        return listener;
    }

    void applied(long lastToken, long logPosition, Usage usage, long revision) {
        this.revision = revision;
        this.lastToken = lastToken;
        this.logPosition = logPosition;
        this.usage = usage;
    }

    /** The replica's fenced KV as it stood after the last apply: what the gateway refuses puts by. */
    public KvView kv() {
        return kv;
    }

    /** The backups this node's gateway waits for this replica to encode. */
    public Backups backups() {
        return backups;
    }

    /** Where this node's gateway serves reads from this replica, without a log entry each. */
    public ReadIndex reads() {
        return reads;
    }

    /** This replica's change feed: what its watches read. */
    public WatchHub watch() {
        return watch;
    }

    /** The revision of the last change this replica applied. */
    public long revision() {
        return revision;
    }

    /** How much of each limit this replica's state used after its last apply (for the node's metrics). */
    public Usage usage() {
        return usage;
    }

    /** A member's report read from the log; reports from unknown ids are ignored. */
    void memberReported(int nodeId, long snapshotPosition) {
        if (nodeId >= 0 && nodeId < memberSnapshotPositions.length()) {
            memberSnapshotPositions.set(nodeId, snapshotPosition);
        }
    }

    /** The latest digest taken (at a status read that asked for one); {@code logPosition} 0 until the first. */
    public Digest digest() {
        return digest;
    }

    void digested(long position, long value) {
        digest = new Digest(position, value);
    }

    public long lastToken() {
        return lastToken;
    }

    public long logPosition() {
        return logPosition;
    }

    /**
     * The lowest latest-snapshot position reported by every member since this replica started,
     * or -1 while any member has not reported: log before it is needed by no member's recovery
     * nor, when that member lags, by its catch-up from whichever node leads.
     */
    public long retentionFloor() {
        long floor = Long.MAX_VALUE;
        for (int i = 0; i < memberSnapshotPositions.length(); i++) {
            long p = memberSnapshotPositions.get(i);
            if (p == UNKNOWN) {
                return UNKNOWN;
            }
            floor = Math.min(floor, p);
        }
        return floor;
    }

    private void send(Runnable task) {
        try {
            watchSending.execute(task);
        } catch (RejectedExecutionException e) {
            // Closed: the node is stopping, and its watches' streams end with its gRPC server.
        }
    }

    /**
     * Stops sending watches' changes, once the service thread no longer feeds the hub (the node
     * closes its service first). A watch's task that is sending finishes its batch; nothing more
     * is sent, and the watch's stream ends with the node's gRPC server (closed before the node).
     */
    @Override
    public void close() {
        watchSending.shutdown();
        reads.close();
    }

    /** Whether every thread that sent watches' changes has ended (after {@link #close}), within {@code timeout}. */
    boolean watchSendingStopped(java.time.Duration timeout) throws InterruptedException {
        return watchSending.awaitTermination(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
}
