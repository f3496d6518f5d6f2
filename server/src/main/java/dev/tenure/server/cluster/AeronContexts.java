package dev.tenure.server.cluster;

import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.runtime.AdaptiveIdleStrategy;
import dev.tenure.server.runtime.SocketPolling;
import dev.tenure.server.security.SecretChallengeAuthenticator;
import dev.tenure.server.security.SecretChallengeCredentials;
import dev.tenure.server.storage.FrameChecksum;
import io.aeron.Aeron;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.client.AeronArchive;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Collectors;
import org.agrona.ErrorHandler;
import org.jspecify.annotations.Nullable;

/**
 * How this node sets up Aeron: the media driver, the archive and its clients, the clients of the
 * node's driver, the member and ingress strings, the driver's directory and the archive's storage
 * floor. In one place so that the member, the gateway, log retention and the bench's Aeron echo
 * run Aeron exactly as a node does.
 */
public final class AeronContexts {
    private AeronContexts() {}

    /**
     * Term length of the publications a node's driver makes without one named in the channel
     * (the gateway's ingress, the egress, the members' consensus channels) when it has no limits
     * to size them by: what {@link #termBytesFor} gives for the default limits' largest request.
     */
    static final int PUBLICATION_TERM_BYTES = 2 * 1024 * 1024;

    /** The smallest term Aeron allows. */
    private static final int TERM_BYTES_MIN = 64 * 1024;

    /** The largest term Aeron allows. */
    private static final int TERM_BYTES_MAX = 1024 * 1024 * 1024;

    /**
     * Archive segment file length: the unit in which old log is deleted. A multiple of every
     * term length a log may have been recorded with (8 MiB before terms were sized to the
     * requests, 2 MiB with the default limits), small enough that little log outlives its last
     * snapshot.
     */
    static final int SEGMENT_BYTES = 16 * 1024 * 1024;

    /**
     * Counters in the driver's shared memory: 1 MiB of values is 8,192 counters, where a node
     * uses a few dozen (a few per publication, image and client). Aeron's default, 8 MiB, comes
     * with 32 MiB of counter metadata, all mapped and written at start.
     */
    static final int COUNTERS_VALUES_BYTES = 1024 * 1024;

    /**
     * The term length for publications whose largest message is {@code messageBytesMax} bytes
     * (a request as the gateway takes it, which its command in the log does not exceed): Aeron
     * takes a message of at most an eighth of a term, and this leaves twice that again for the
     * headers Aeron and the cluster add. A power of two, as Aeron requires: 2 MiB for the default
     * limits' 128 KiB.
     */
    public static int termBytesFor(int messageBytesMax) {
        long wanted = 16L * messageBytesMax;
        long term = TERM_BYTES_MIN;
        while (term < wanted && term < TERM_BYTES_MAX) {
            term <<= 1;
        }
        return (int) term;
    }

    /**
     * The media driver as every node runs it; public so that the bench's Aeron echo measures the
     * same driver. The driver's async executor (name resolution and channel parsing when a
     * publication or subscription is added) would otherwise sleep 1 ms at a time, waking a thousand
     * times a second on an idle node (see BENCHMARKS.md, 'Keepalives on a grid'). With no {@code
     * errors}, Aeron's own handler records errors in the driver's error log.
     */
    public static MediaDriver.Context driverContext(String aeronDir, @Nullable ErrorHandler errors) {
        SocketPolling.oneSelectPerDutyCycle();
        return new MediaDriver.Context()
                .aeronDirectoryName(aeronDir)
                .epochClock(MonotonicClusterClock.INSTANCE)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(AdaptiveIdleStrategy.forDriver())
                .asyncExecutorIdleStrategy(AdaptiveIdleStrategy.standard())
                .publicationTermBufferLength(PUBLICATION_TERM_BYTES)
                .ipcTermBufferLength(PUBLICATION_TERM_BYTES)
                .counterValuesBufferLength(COUNTERS_VALUES_BYTES)
                .errorHandler(errors);
    }

    static Archive.Context archiveContext(ServerConfig config, String aeronDir, ErrorHandler errors) {
        ServerConfig.Member self = config.self();
        String host = self.host();
        Archive.Context archive = new Archive.Context()
                .aeronDirectoryName(aeronDir)
                .epochClock(MonotonicClusterClock.INSTANCE)
                .archiveDir(new File(config.dataDir().toAbsolutePath().toFile(), "archive"))
                .archiveId(self.id())
                .controlChannel("aeron:udp?endpoint=" + host + ":" + self.archivePort())
                .localControlChannel("aeron:ipc?term-length=64k")
                .replicationChannel("aeron:udp?endpoint=" + host + ":0")
                // What this archive connects to a peer's archive with, to copy its log or
                // snapshots: with a cluster secret, answering that archive's challenge.
                .archiveClientContext(archiveClient(config).controlResponseChannel("aeron:udp?endpoint=" + host + ":0"))
                .recordingEventsEnabled(false)
                .threadingMode(ArchiveThreadingMode.SHARED)
                .idleStrategySupplier(AdaptiveIdleStrategy::standard)
                .segmentFileLength(SEGMENT_BYTES)
                // Every frame the archive records (log, snapshots, copies from peers) gets a
                // CRC-32C of its payload in its header, and every replay it serves (recovery, a
                // peer's catch-up or copy) checks it: damaged bytes fail the replay instead of
                // reaching a state machine.
                .recordChecksum(FrameChecksum.CRC32C)
                .replayChecksum(FrameChecksum.CRC32C)
                .fileSyncLevel(1)
                .catalogFileSyncLevel(1)
                .lowStorageSpaceThreshold(storageFloorBytes())
                .errorHandler(errors);
        if (config.clusterSecret() != null) {
            // The control port answers any client that reaches it, and a client may read the
            // whole log, or truncate and delete recordings: with a secret, only those that prove
            // it (this member's own parts, and its peers copying from it) are let in.
            archive.authenticatorSupplier(SecretChallengeAuthenticator.supplier(
                    config.clusterSecret(), Duration.ofNanos(Archive.Configuration.connectTimeoutNs())));
        }
        return archive;
    }

    /**
     * A client of an archive, this member's or a peer's, as this member opens one: with a cluster
     * secret, it answers the archive's challenge.
     */
    static AeronArchive.Context archiveClient(ServerConfig config) {
        AeronArchive.Context client = new AeronArchive.Context();
        if (config.clusterSecret() != null) {
            client.credentialsSupplier(new SecretChallengeCredentials(config.clusterSecret()));
        }
        return client;
    }

    /**
     * Free space on the data directory's file system at or below which the archive refuses to
     * start or extend a recording, and so the member cannot record its log: Aeron's low storage
     * threshold ({@code aeron.archive.low.storage.space.threshold}; 128 MiB, Aeron's default
     * segment size, unless that property is set). Set on the archive from here, so that the node's
     * start check and the archive cannot disagree.
     */
    public static long storageFloorBytes() {
        return Archive.Configuration.lowStorageSpaceThreshold();
    }

    /** An Aeron client on this node's driver that reads time the way the driver writes it. */
    public static Aeron connectClient(String aeronDir) {
        return Aeron.connect(clientContext(aeronDir));
    }

    /**
     * As {@link #connectClient}, but with no conductor thread: whoever uses it must call its
     * {@link Aeron#conductorAgentInvoker()} in its duty cycle (at least every few hundred
     * milliseconds, or the driver times the client out).
     */
    public static Aeron connectInvokedClient(String aeronDir) {
        return Aeron.connect(clientContext(aeronDir).useConductorAgentInvoker(true));
    }

    static Aeron.Context clientContext(String aeronDir) {
        return new Aeron.Context().aeronDirectoryName(aeronDir).epochClock(MonotonicClusterClock.INSTANCE);
    }

    /** Aeron's member string: id,ingress,consensus,log,catchup,archive per member, '|' separated. */
    static String clusterMembers(ServerConfig config) {
        return config.members().stream()
                .map(m -> m.id() + "," + m.host() + ":" + m.ingressPort()
                        + "," + m.host() + ":" + m.consensusPort()
                        + "," + m.host() + ":" + m.logPort()
                        + "," + m.host() + ":" + m.catchupPort()
                        + "," + m.host() + ":" + m.archivePort())
                .collect(Collectors.joining("|"));
    }

    /** Aeron's ingress endpoint list for cluster clients: id=host:port per member. */
    public static String ingressEndpoints(ServerConfig config) {
        return config.members().stream()
                .map(m -> m.id() + "=" + m.host() + ":" + m.ingressPort())
                .collect(Collectors.joining(","));
    }

    /**
     * Shared memory for the media driver, unique per data directory and node: two nodes on one
     * machine must never share a driver, and a restarted node must find its own. It sits in a
     * directory of its own, made owner-only and claimed before the driver starts ({@link
     * AeronDirClaim}): the driver deletes and makes its directory itself, with the process's umask.
     */
    public static String aeronDirFor(ServerConfig config) {
        String key = config.dataDir().toAbsolutePath().normalize().toString();
        long hash = 1125899906842597L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash = 31 * hash + b;
        }
        File shm = new File("/dev/shm");
        String parent = shm.isDirectory() ? shm.getPath() : System.getProperty("java.io.tmpdir");
        return parent + "/" + AeronDirSweep.PREFIX + config.nodeId() + "-" + Long.toHexString(hash) + "/"
                + AeronDirSweep.DRIVER;
    }
}
