package dev.tenure.client;

import dev.tenure.api.v1.ServerStatusResponse;
import java.time.Instant;
import java.util.List;

/**
 * One node's view of itself and its cluster.
 *
 * @param leaderId -1 when no leader is known
 * @param now the state machine's time at this read (the leader's clock as it ordered it)
 * @param health "ok", or "no quorum" / "starting" with a reason in {@code healthDetail}
 * @param replicaLastToken the token counter of this node's own replica, as last applied (not a
 *     linearizable read: replicas that agree show the same counter at the same log position)
 * @param snapshots snapshots this node has taken since it started
 * @param staleWritesRejected stale writes rejected so far, all locks together (replicated)
 * @param snapshotPosition log position of this node's latest snapshot (0: none)
 * @param logStartPosition where this node's retained log starts; log before it was covered by
 *     snapshots on every member and deleted
 * @param replicaDigestPosition the log position of {@code replicaStateDigest} (0: none yet)
 * @param replicaStateDigest a digest of this replica's whole state at that position, taken on
 *     request (each status call asks for the next): replicas that agree have equal digests at
 *     equal positions
 * @param revision the revision of the last change this node's replica applied: where a watch
 *     started now would begin (see {@link TenureClient#watch}); like {@code replicaLastToken}, this
 *     replica's own, not a linearizable read
 */
public record ServerStatus(
        int nodeId,
        List<Member> members,
        int leaderId,
        String health,
        String healthDetail,
        Instant healthSince,
        long sessions,
        long locks,
        long held,
        long lastToken,
        Instant now,
        long replicaLastToken,
        long replicaLogPosition,
        long snapshots,
        long staleWritesRejected,

        long snapshotPosition,
        long logStartPosition,
        long replicaDigestPosition,
        long replicaStateDigest,
        long revision) {

    public ServerStatus {
        members = List.copyOf(members);
    }

    /**
     * One member of the cluster as the answering node knows it: its id, its client endpoint and
     * whether it is the leader in that node's view.
     */
    public record Member(int id, String endpoint, boolean leader) {}

    static ServerStatus from(ServerStatusResponse r) {
        List<Member> members = r.getMembersList().stream()
                .map(m -> new Member(m.getId(), m.getEndpoint(), m.getLeader()))
                .toList();
        return new ServerStatus(
                r.getNodeId(),
                members,
                r.getLeaderId(),
                r.getHealth(),
                r.getHealthDetail(),
                Instant.ofEpochMilli(r.getHealthSinceMs()),
                r.getSessions(),
                r.getLocks(),
                r.getHeld(),
                r.getLastToken(),
                Instant.ofEpochMilli(r.getNowMs()),
                r.getReplicaLastToken(),
                r.getReplicaLogPosition(),
                r.getSnapshots(),
                r.getStaleWritesRejected(),
                r.getSnapshotPosition(),
                r.getLogStartPosition(),
                r.getReplicaDigestPosition(),
                r.getReplicaStateDigest(),
                r.getRevision());
    }
}
