package dev.tenure.gateway;

import dev.tenure.api.v1.Code;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.ReinstatePrincipal;
import dev.tenure.log.v1.RevokePrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Turns a reload of this node's ACL into log entries, so that revoking a principal reaches every
 * session it has wherever it is (bound to another node, in its disconnect grace, opened or resumed
 * but not bound yet) and every node, whatever its own ACL file says: see {@code
 * dev.tenure.core.Revocations}. A principal the new ACL gives less is revoked; one it no longer
 * names is also barred; one it names that the ACL before did not is reinstated.
 *
 * <p>Entries go in the order the reloads made them, one at a time, each sent again until it
 * commits (a leader change, no quorum for a while), so a revocation and a later reinstatement of
 * the same principal cannot land the other way round.
 */
final class Revoker {
    /** How many times each entry is sent, {@link #RETRY_MS} apart: about two minutes. */
    static final int ATTEMPTS = 120;

    static final long RETRY_MS = 1_000;

    private final Gateway gateway;
    /** The last entry queued; the next waits for it. Guarded by this. */
    private CompletableFuture<List<String>> tail = CompletableFuture.completedFuture(List.of());

    Revoker(Gateway gateway) {
        this.gateway = gateway;
    }

    /** Replicates what putting {@code next} in force instead of {@code before} changes. */
    AclChange change(Acl before, Acl next) {
        if (before.open()) {
            return AclChange.none();
        }
        List<String> revoked = next.narrowedSince(before);
        List<String> barred = new ArrayList<>();
        List<Supplier<LogCommand.Builder>> entries = new ArrayList<>();
        for (String principal : revoked) {
            boolean bar = !next.names(principal);
            if (bar) {
                barred.add(principal);
            }
            entries.add(() -> LogCommand.newBuilder()
                    .setRevokePrincipal(
                            RevokePrincipal.newBuilder().setPrincipal(principal).setBarred(bar)));
        }
        List<String> reinstated = next.namedSince(before);
        for (String principal : reinstated) {
            entries.add(() -> LogCommand.newBuilder()
                    .setReinstatePrincipal(ReinstatePrincipal.newBuilder().setPrincipal(principal)));
        }
        return new AclChange(revoked, barred, reinstated, queue(entries));
    }

    private synchronized CompletableFuture<List<String>> queue(List<Supplier<LogCommand.Builder>> entries) {
        List<String> problems = new ArrayList<>();
        CompletableFuture<List<String>> done = tail.thenApply(x -> problems);
        for (Supplier<LogCommand.Builder> entry : entries) {
            done = done.thenCompose(p -> send(entry, ATTEMPTS).thenApply(problem -> {
                if (problem != null) {
                    p.add(problem);
                }
                return p;
            }));
        }
        tail = done;
        return done.thenApply(List::copyOf);
    }

    /** Completes with null once {@code entry} is committed and applied, else with why not. */
    private CompletableFuture<String> send(Supplier<LogCommand.Builder> entry, int attemptsLeft) {
        CompletableFuture<String> outcome = new CompletableFuture<>();
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = gateway.log().submit(entry.get()).whenComplete((reply, error) -> {
            if (error == null) {
                boolean ok = reply.getDone().getCode() == Code.CODE_OK;
                outcome.complete(ok ? null : reply.getDone().getMessage());
            } else if (attemptsLeft > 1) {
                // send's future never fails (it completes with why not), so the one whenComplete
                // returns has nothing to report either.
                gateway.later(RETRY_MS, () -> {
                    var unusedRetry = send(entry, attemptsLeft - 1).whenComplete((p, e) -> outcome.complete(p));
                });
            } else {
                outcome.complete("not committed after " + ATTEMPTS + " tries: " + error.getMessage());
            }
        });
        return outcome;
    }
}
