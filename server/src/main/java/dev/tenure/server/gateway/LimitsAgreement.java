package dev.tenure.server.gateway;

import dev.tenure.api.v1.Code;
import dev.tenure.core.Limits;
import dev.tenure.core.PrincipalLimits;
import dev.tenure.gateway.LimitsMapping;
import dev.tenure.gateway.LogPort;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.fatal.FatalErrors;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's limits, agreed with the cluster through the log before its gateway writes any
 * client's command there. The node proposes its limits (and its ACL's quotas) as a {@code
 * SetLimits} entry: the first in the log become the cluster's, an equal one is agreed, and a
 * differing one is refused, naming both values, and ends the node (exit 2), unless the operator
 * asked for a change ({@code --change-limits}, or an ACL read again).
 *
 * <p>Why every client command waits: the state machine decides under the limits the log holds, or
 * under each member's own while it holds none (a new log). A command this gateway writes after its
 * own proposal was answered is behind that proposal in the log, so behind the first limits the log
 * ever held: no replica decides a client's command under its own limits.
 */
final class LimitsAgreement implements LogPort {
    private static final Logger LOG = LoggerFactory.getLogger(LimitsAgreement.class);

    static final long RETRY_MS = 500;

    private final LogPort log;
    private final TimerThread timer;
    private final FatalErrors fatalErrors;
    private final Limits limits;
    private final int nodeId;
    private final Supplier<SortedMap<String, PrincipalLimits>> quotas;
    private final CompletableFuture<Void> answered = new CompletableFuture<>();
    private volatile boolean agreed;

    LimitsAgreement(
            LogPort log,
            TimerThread timer,
            FatalErrors fatalErrors,
            Limits limits,
            int nodeId,
            Supplier<SortedMap<String, PrincipalLimits>> quotas) {
        this.log = log;
        this.timer = timer;
        this.fatalErrors = fatalErrors;
        this.limits = limits;
        this.nodeId = nodeId;
        this.quotas = quotas;
    }

    /** Completes once the log answered this node's limits, agreed or refused (a refusal ends the node). */
    CompletableFuture<Void> answered() {
        return answered;
    }

    boolean isAgreed() {
        return agreed;
    }

    /** Proposes this node's limits until the log answers; {@code change}: the operator asked for them. */
    void propose(boolean change) {
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = proposal(change).whenComplete((reply, error) -> {
            if (error != null) {
                // No leader or no quorum yet: the proposal may or may not have landed, and
                // proposing the same values again is harmless either way.
                timer.later(RETRY_MS, () -> propose(change));
            } else if (reply.getDone().getCode() == Code.CODE_OK) {
                agreed = true;
                answered.complete(null);
            } else {
                fatalErrors.ended(
                        FatalCause.LIMITS_DIFFER,
                        reply.getDone().getMessage()
                                + " (docs/memory.md, 'Changing limits on a node that holds data')");
                answered.complete(null);
            }
        });
    }

    /**
     * Proposes the quotas of an ACL read again, as a change. A refusal (the state holds more than a
     * new quota allows) leaves the cluster's quotas as they were, and the node serving: it is said.
     */
    void proposeQuotas() {
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = proposal(true).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.warn("tenure: the ACL's quotas did not reach the log (" + error.getMessage()
                        + "); the cluster keeps the ones before; send SIGHUP again");
            } else if (reply.getDone().getCode() != Code.CODE_OK) {
                LOG.warn("tenure: the ACL's quotas were refused, the cluster keeps the ones before: "
                        + reply.getDone().getMessage());
            } else {
                LOG.info("tenure: the ACL's quotas are in force on every member");
            }
        });
    }

    private CompletableFuture<Reply> proposal(boolean change) {
        return log.submit(LogCommand.newBuilder()
                .setSetLimits(LimitsMapping.toProto(limits, new TreeMap<>(quotas.get()), change, nodeId)));
    }

    /** Refused until agreed, but for the node's own reads of its status (they decide nothing). */
    @Override
    public CompletableFuture<Reply> submit(LogCommand.Builder command) {
        if (isAgreed() || command.hasStats() || command.hasSetLimits()) {
            return log.submit(command);
        }
        return CompletableFuture.failedFuture(notYet());
    }

    @Override
    public CompletableFuture<Boolean> renewSession(long sessionId) {
        return isAgreed() ? log.renewSession(sessionId) : CompletableFuture.failedFuture(notYet());
    }

    private ClusterUnavailableException notYet() {
        return new ClusterUnavailableException(
                "node " + nodeId + " has not yet agreed its limits with the cluster (no leader or no quorum so far)");
    }
}
