package dev.tenure.gateway;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What putting an ACL in force changed across the cluster. {@code revoked}: principals it gives
 * less than the ACL before, whose sessions every node ends (REVOKED); {@code barred}: those of
 * them it no longer names at all, which no node lets open or resume a session until a reload names
 * them again; {@code reinstated}: principals it names that the ACL before did not, whose bar (if
 * any) is lifted. {@code replicated} completes once every revocation and reinstatement is
 * committed, with what went wrong (empty: nothing).
 */
public record AclChange(
        List<String> revoked,
        List<String> barred,
        List<String> reinstated,
        CompletableFuture<List<String>> replicated) {
    public AclChange {
        revoked = List.copyOf(revoked);
        barred = List.copyOf(barred);
        reinstated = List.copyOf(reinstated);
    }

    /** An ACL put in force where there was none (the node's start): the node served no call before it. */
    static AclChange none() {
        return new AclChange(List.of(), List.of(), List.of(), CompletableFuture.completedFuture(List.of()));
    }
}
