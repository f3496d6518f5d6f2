package dev.tenure.server.cluster;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tenure.core.Change;
import dev.tenure.core.Event;
import dev.tenure.core.Limits;
import dev.tenure.core.Result;
import dev.tenure.core.StateMachine;
import dev.tenure.gateway.WatchHub;
import dev.tenure.gateway.WireMapping;
import dev.tenure.log.v1.Egress;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.MemberReport;
import dev.tenure.log.v1.Reply;
import dev.tenure.server.backup.BackupFile;
import dev.tenure.server.storage.CorruptDataException;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusterCounters;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.logbuffer.Header;
import io.aeron.status.ReadableCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

/**
 * Hosts the deterministic {@link StateMachine} as an Aeron clustered service. Every replica runs
 * this code on the same log in the same order; only the leader's egress actually leaves the
 * process (Aeron makes a follower's {@code ClientSession.offer} a no-op), so a follower computes
 * replies it never sends.
 *
 * <p>Time: every input carries the leader-assigned log timestamp (ms). Expiry is driven by one
 * replicated Aeron timer set to the state machine's earliest deadline; timer events are log
 * entries too, so all replicas expire the same sessions at the same log position.
 */
public final class TenureClusteredService implements ClusteredService {

    private static final long DEADLINE_TIMER_ID = 1;
    private static final int OFFER_ATTEMPTS = 3;

    private final Limits limits;
    private final Path archiveDir;
    private final Consumer<Cluster.Role> roleListener;
    private final ReplicaView replica;
    private final LongConsumer acknowledging;
    private final List<Event> events = new ArrayList<>();
    private final List<Change> changes = new ArrayList<>();
    /** Reads what a watch starts from, on this thread, between applies. */
    private final WatchHub.StateReader stateReader = new WatchHub.StateReader() {
        @Override
        public long revision() {
            return machine.revision();
        }

        @Override
        public List<Change> current(String name, boolean prefix) {
            List<Change> out = new ArrayList<>();
            machine.current(name, prefix, out::add);
            return out;
        }
    };

    private final UnsafeBuffer egressBuffer = new UnsafeBuffer(new byte[0]);
    /** What the read lease's quiet period withholds: egress, in order, and the changes watches have not heard. */
    private final List<WithheldEgress> withheldEgress = new ArrayList<>();

    private final List<Change> withheldChanges = new ArrayList<>();

    private record WithheldEgress(ClientSession session, Egress egress) {}

    // The three below are set by onStart, which Aeron calls before any other callback of the service.
    @SuppressWarnings("NullAway.Init")
    private Cluster cluster;

    @SuppressWarnings("NullAway.Init")
    private IdleStrategy idle;

    @SuppressWarnings("NullAway.Init")
    private StateMachine machine;

    private long timerDeadlineMs = Long.MAX_VALUE;
    /** The cluster time of the last digest taken here; none yet after a start. */
    private long lastDigestMs = Long.MIN_VALUE;

    public TenureClusteredService(
            Limits limits, Path archiveDir, Consumer<Cluster.Role> roleListener, ReplicaView replica) {
        this(limits, archiveDir, roleListener, replica, position -> {});
    }

    /**
     * As above; {@code acknowledging} hears each entry's end position before anything of that
     * entry is sent (see {@code AcknowledgedPosition}).
     */
    public TenureClusteredService(
            Limits limits,
            Path archiveDir,
            Consumer<Cluster.Role> roleListener,
            ReplicaView replica,
            LongConsumer acknowledging) {
        this.acknowledging = acknowledging;
        this.limits = limits;
        this.archiveDir = archiveDir;
        this.roleListener = roleListener;
        this.replica = replica;
    }

    @Override
    public void onStart(Cluster cluster, Image snapshotImage) {
        this.cluster = cluster;
        this.idle = cluster.idleStrategy();
        machine = snapshotImage == null ? seeded() : restore(snapshotImage);
        replica.kv().reloaded(machine);
        machine.trackChanges();
        // Nothing before the state this replica starts from is kept: a watch that resumes from an
        // earlier revision is refused, never served with a gap.
        replica.watch().reset(machine.revision());
        replica.listener().restarted();
        // A timer scheduled before the snapshot belongs to the consensus module's own snapshot,
        // so after a restore the next apply re-arms it only if the deadline moved.
        timerDeadlineMs = Long.MAX_VALUE;
        // Aeron calls onRoleChange only when the role differs from the one the service starts
        // in (a follower's): without this, the node would never hear that it starts as one.
        roleListener.accept(cluster.role());
        replica.reads().leading(cluster.role() == Cluster.Role.LEADER);
        lease().start(machine.limits().readLeaseMs(), cluster.role() == Cluster.Role.LEADER, System.nanoTime());
        CountersReader counters = cluster.aeron().countersReader();
        int commitCounter = ClusterCounters.find(
                counters,
                ConsensusModule.Configuration.COMMIT_POSITION_TYPE_ID,
                cluster.context().clusterId());
        if (commitCounter != CountersReader.NULL_COUNTER_ID) {
            ReadableCounter commitPosition = new ReadableCounter(counters, commitCounter);
            replica.reads().commitPosition(commitPosition::get);
        }
    }

    private ReadLease lease() {
        return replica.reads().lease();
    }

    /**
     * The state a member starts from when there is no snapshot: empty, or the seed {@code tenure
     * restore} left in the data directory. The log is replayed over it from the start, so the
     * seed stays as long as the directory does: every replica of a restored cluster holds the same
     * seed, so all replay the same log over the same state.
     */
    private StateMachine seeded() {
        Path seed = archiveDir.resolveSibling(BackupFile.SEED_FILE);
        if (!Files.exists(seed)) {
            return new StateMachine(limits);
        }
        try {
            return StateMachine.restore(BackupFile.read(seed).snapshot(), limits);
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            throw new CorruptDataException(seed, -1, "the restore seed", String.valueOf(e.getMessage()));
        }
    }

    /**
     * The state machine from the snapshot the consensus module loads. Its frames were checked at
     * start ({@code RecoveryCheck}), so a snapshot that still does not decode was written wrong or
     * by another release: the member stops (exit 12) rather than start from another state.
     */
    private StateMachine restore(Image snapshotImage) {
        try {
            return StateMachine.restore(SnapshotTransfer.read(snapshotImage, idle), limits);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new CorruptDataException(
                    archiveDir,
                    -1,
                    "the state machine snapshot of log position " + cluster.logPosition(),
                    "it does not restore: " + e.getMessage());
        }
    }

    @Override
    public void onSessionMessage(
            ClientSession session, long timestamp, DirectBuffer buffer, int offset, int length, Header header) {
        LogCommand command;
        try {
            byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            command = LogCommand.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            // Garbage from a client changes nothing; the deterministic answer is to skip it.
            return;
        }
        if (command.hasStats() && command.getStats().hasReport()) {
            MemberReport report = command.getStats().getReport();
            replica.memberReported(report.getNodeId(), report.getRecoveryPosition());
        }
        Result result = machine.apply(timestamp, WireMapping.toCommand(command));
        if (command.hasSetLimits()) {
            lease().limit(machine.limits().readLeaseMs(), System.nanoTime());
        }
        Reply reply = WireMapping.toReply(command, result);
        acknowledging.accept(cluster.logPosition());
        // Before the reply: a client told its delete is done finds the room it freed in this
        // node's view of the KV, which refuses puts before the log.
        replica.kv().applied(machine);
        send(session, Egress.newBuilder().setReply(reply).build());
        afterApply();
        replica.reads().applied(session.id(), command.getCorrelationId(), cluster.logPosition(), this::serveRead);
        if (command.hasBackup()) {
            // Right after the apply, before any other entry: the state at exactly this position.
            long position = cluster.logPosition();
            replica.backups()
                    .applied(
                            command.getBackup().getBackupId(),
                            () -> new Backups.Taken(
                                    position, machine.lastToken(), machine.nowMs(), machine.snapshot()));
        }
        if (command.hasStats() && command.getStats().getStateDigest() && digestDue(timestamp)) {
            // Every replica applies this entry, so all digest the same position; the snapshot
            // encoding is canonical, so replicas that agree produce equal bytes.
            replica.digested(cluster.logPosition(), StateDigest.of(machine.snapshot()));
        }
    }

    /**
     * A digest encodes the whole state on this thread, which no command is applied on meanwhile,
     * and any client's status read may ask for one: at most one per {@link StateDigest#INTERVAL_MS}
     * of cluster time, however many ask. The entry's timestamp decides, so replicas that have
     * applied the same log decide alike (one restarted since digests once more at its next
     * request). A digest is a diagnosis, not state: what it decides changes nothing else.
     */
    private boolean digestDue(long timestamp) {
        if (lastDigestMs != Long.MIN_VALUE && timestamp - lastDigestMs < StateDigest.INTERVAL_MS) {
            return false;
        }
        lastDigestMs = timestamp;
        return true;
    }

    @Override
    public void onTimerEvent(long correlationId, long timestamp) {
        if (correlationId == DEADLINE_TIMER_ID) {
            timerDeadlineMs = Long.MAX_VALUE;
            machine.advance(timestamp);
            afterApply();
        }
    }

    @Override
    public void onNewLeadershipTermEvent(
            long leadershipTermId,
            long logPosition,
            long timestamp,
            long termBaseLogPosition,
            int leaderMemberId,
            int logSessionId,
            TimeUnit timeUnit,
            int appVersion) {
        if (timeUnit != TimeUnit.MILLISECONDS) {
            // Every deadline in the state machine is in ms; another unit would expire sessions
            // a thousand times too early or too late.
            throw new IllegalStateException("cluster time unit must be milliseconds, is " + timeUnit);
        }
        // A new leader's clock may run ahead of the old one: restarting every deadline at
        // now + TTL keeps it from expiring a session before that client's horizon.
        machine.onNewTerm(timestamp);
        lease().newTerm(leaderMemberId == cluster.memberId(), System.nanoTime());
        afterApply();
        replica.listener().newTerm(leaderMemberId);
    }

    @Override
    public void onTakeSnapshot(ExclusivePublication publication) {
        long start = System.nanoTime();
        byte[] snapshot = machine.snapshot();
        SnapshotTransfer.write(publication, snapshot, idle);
        // A figure for the node's metrics only: nothing the state machine decides reads it.
        replica.listener().snapshotWritten(snapshot.length, System.nanoTime() - start);
    }

    /**
     * A watch that starts from the current state waits for this thread to read it: between two
     * applies, so that the state and its revision agree. An idle log applies nothing, so the
     * reading is done here too.
     */
    @Override
    public int doBackgroundWork(long nowNs) {
        if (machine == null) {
            return 0;
        }
        // Its own clock: the read index times reads on the gateway's threads by nanoTime.
        long now = System.nanoTime();
        int work = replica.reads().expire(now, cluster.logPosition(), this::serveRead);
        if (lease().mayBeQuiet() && lease().quiet(now)) {
            return work;
        }
        work += releaseWithheld();
        if (replica.watch().startsPending()) {
            replica.watch().serveStarts(stateReader);
            work++;
        }
        return work;
    }

    /** A read the read index releases, answered from the state right after the entry that released it. */
    private Reply serveRead(LogCommand read) {
        return WireMapping.toReply(read, machine.read(WireMapping.toCommand(read)));
    }

    @Override
    public void onSessionOpen(ClientSession session, long timestamp) {}

    @Override
    public void onSessionClose(ClientSession session, long timestamp, CloseReason closeReason) {}

    @Override
    public void onRoleChange(Cluster.Role newRole) {
        roleListener.accept(newRole);
        replica.reads().leading(newRole == Cluster.Role.LEADER);
    }

    /**
     * Sends what the read lease's quiet period withheld, once it ended: the egress in the order it
     * was produced, and the changes to the watches, before anything newer. Returns how much it sent.
     */
    private int releaseWithheld() {
        int released = withheldEgress.size() + withheldChanges.size();
        if (released == 0) {
            return 0;
        }
        for (WithheldEgress e : withheldEgress) {
            offer(e.session(), e.egress().toByteArray());
        }
        withheldEgress.clear();
        if (!withheldChanges.isEmpty()) {
            replica.watch().applied(withheldChanges);
            withheldChanges.clear();
        }
        return released;
    }

    /** True in the read lease's quiet period, when nothing this member applies may be seen (see {@link ReadLease}). */
    private boolean quiet() {
        if (lease().mayBeQuiet() && lease().quiet(System.nanoTime())) {
            return true;
        }
        // The period may have ended on another path (the read index asks too): whatever it
        // withheld goes out before anything newer.
        releaseWithheld();
        return false;
    }

    @Override
    public void onTerminate(Cluster cluster) {}

    /** Delivers the events of the last apply and re-arms the deadline timer if it moved. */
    private void afterApply() {
        acknowledging.accept(cluster.logPosition());
        replica.kv().applied(machine);
        replica.applied(machine.lastToken(), cluster.logPosition(), machine.usage(), machine.revision());
        machine.drainChanges(changes);
        boolean quiet = quiet();
        if (quiet) {
            withheldChanges.addAll(changes);
        } else {
            replica.watch().applied(changes);
        }
        replica.listener().applied(changes);
        changes.clear();
        if (!quiet) {
            replica.watch().serveStarts(stateReader);
        }
        machine.drainEvents(events);
        for (Event event : events) {
            Egress egress = WireMapping.toEgress(event);
            // Every gateway gets every event; the one serving the session delivers it. Events
            // are rare next to requests, and this keeps sessions free to move between nodes.
            for (ClientSession session : cluster.clientSessions()) {
                send(session, egress);
            }
        }
        events.clear();
        long next = machine.nextDeadlineMs();
        if (next != timerDeadlineMs) {
            if (next == Long.MAX_VALUE) {
                cluster.cancelTimer(DEADLINE_TIMER_ID);
            } else {
                cluster.scheduleTimer(DEADLINE_TIMER_ID, next);
            }
            timerDeadlineMs = next;
        }
    }

    /**
     * Egress is best effort: a reply lost to back pressure or a dead gateway is recovered by the
     * client's retry with the same request id, which the state machine answers from its cache.
     */
    private void send(ClientSession session, Egress egress) {
        // Only a leader's egress leaves the process (a follower's offer is a no-op), so only a
        // leader's is withheld: released later, a follower's would go out as a leader's.
        if (cluster.role() == Cluster.Role.LEADER && quiet()) {
            withheldEgress.add(new WithheldEgress(session, egress));
            return;
        }
        offer(session, egress.toByteArray());
    }

    private void offer(ClientSession session, byte[] bytes) {
        egressBuffer.wrap(bytes);
        for (int attempt = 0; attempt < OFFER_ATTEMPTS; attempt++) {
            if (session.offer(egressBuffer, 0, bytes.length) > 0) {
                return;
            }
            idle.idle();
        }
    }
}
