package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The read lease's rules on a clock the test moves: a proof counts only in a term that names this
 * node leader, while it leads, for Δ(1 − ρ) after the probe; every start, term, leadership and
 * change of Δ is quiet for Δ(1 + ρ).
 */
class ReadLeaseTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Δ = 1 s: a proof serves 950 ms, a quiet period lasts 1,050 ms (ρ = 1/20). */
    private static final long LEASE_MS = 1_000;

    private final ReadLease lease = new ReadLease();

    /** A lease started as leader at 0, in its own term applied at {@code termAtMs}. */
    private ReadLease ownTerm(long termAtMs) {
        lease.start(LEASE_MS, true, 0);
        lease.newTerm(true, termAtMs * MS);
        return lease;
    }

    @Test
    void offUnlessALeaseIsAgreedProvesNothingAndHoldsNothing() {
        lease.start(0, true, 0);
        lease.newTerm(true, 0);
        lease.proved(1 * MS);
        assertThat(lease.enabled()).isFalse();
        assertThat(lease.mayBeQuiet()).isFalse();
        assertThat(lease.valid(2 * MS)).isFalse();
        assertThat(lease.mayServe(2 * MS)).isFalse();
        assertThat(lease.renewalDue(2 * MS)).isFalse();
    }

    @Test
    void aStartIsQuietForTheLeaseAndATwentiethMore() {
        lease.start(LEASE_MS, false, 5 * MS);
        assertThat(lease.quiet(5 * MS)).isTrue();
        assertThat(lease.quiet(1_054 * MS)).isTrue();
        assertThat(lease.quiet(1_055 * MS)).isFalse();
        assertThat(lease.mayBeQuiet())
                .as("a quiet period that ended is forgotten")
                .isFalse();
    }

    @Test
    void aProofServesForTheLeaseLessATwentiethFromItsProbe() {
        ownTerm(0);
        lease.proved(2_000 * MS);
        assertThat(lease.valid(2_000 * MS)).isTrue();
        assertThat(lease.valid(2_949 * MS)).isTrue();
        assertThat(lease.valid(2_950 * MS)).isFalse();
        assertThat(lease.mayServe(2_949 * MS)).isTrue();
        assertThat(lease.mayServe(2_950 * MS)).isFalse();
    }

    @Test
    void anOlderProbeDoesNotShortenALaterProof() {
        ownTerm(0);
        lease.proved(2_000 * MS);
        lease.proved(1_500 * MS);
        assertThat(lease.valid(2_900 * MS)).isTrue();
    }

    @Test
    void noReadIsServedInTheNewTermsQuietPeriod() {
        ownTerm(3_000);
        lease.proved(3_200 * MS);
        assertThat(lease.valid(3_300 * MS))
                .as("proven, but the term started 300 ms ago")
                .isFalse();
        assertThat(lease.quiet(4_049 * MS)).isTrue();
        assertThat(lease.valid(4_049 * MS)).isFalse();
        assertThat(lease.valid(4_050 * MS)).isTrue();
    }

    @Test
    void aProofCountsOnlyInATermThatNamesThisNodeAndWhileItLeads() {
        lease.start(LEASE_MS, true, 0);
        lease.proved(2_000 * MS);
        assertThat(lease.valid(2_001 * MS)).as("no term of its own applied yet").isFalse();

        lease.newTerm(false, 0);
        lease.proved(2_000 * MS);
        assertThat(lease.valid(2_001 * MS)).as("another node's term").isFalse();

        lease.role(false, 0);
        lease.newTerm(true, 0);
        lease.proved(2_000 * MS);
        assertThat(lease.valid(2_001 * MS)).as("its term, but it follows").isFalse();
    }

    @Test
    void aNewTermOrLeavingTheLeadEndsTheLease() {
        ownTerm(0);
        lease.proved(2_000 * MS);
        lease.newTerm(false, 2_100 * MS);
        assertThat(lease.valid(2_101 * MS)).isFalse();
        assertThat(lease.mayServe(2_101 * MS)).isFalse();

        ownTerm(0);
        lease.proved(2_000 * MS);
        lease.role(false, 2_100 * MS);
        assertThat(lease.valid(2_101 * MS)).isFalse();
        lease.role(true, 2_200 * MS);
        lease.proved(4_000 * MS);
        assertThat(lease.valid(4_001 * MS))
                .as("led again, but the term it applied last was one it left")
                .isFalse();
    }

    @Test
    void becomingLeaderAfterItsTermEventKeepsTheTermAndIsQuiet() {
        lease.start(LEASE_MS, false, 0);
        lease.newTerm(true, 2_000 * MS);
        lease.role(true, 2_500 * MS);
        lease.proved(2_700 * MS);
        assertThat(lease.quiet(3_549 * MS)).as("quiet from becoming leader").isTrue();
        assertThat(lease.valid(3_550 * MS)).isTrue();
    }

    @Test
    void aChangeOfTheLeaseIsQuietForTheOldOneAndEndsItsProofs() {
        ownTerm(0);
        lease.proved(2_000 * MS);
        lease.limit(100, 2_100 * MS);
        assertThat(lease.valid(2_101 * MS)).isFalse();
        assertThat(lease.quiet(3_149 * MS))
                .as("the old lease's quiet period, not the new one's")
                .isTrue();
        assertThat(lease.quiet(3_150 * MS)).isFalse();

        lease.limit(0, 4_000 * MS);
        assertThat(lease.enabled()).isFalse();
        assertThat(lease.quiet(4_104 * MS))
                .as("turning it off is quiet for the lease it had")
                .isTrue();
        lease.proved(4_200 * MS);
        assertThat(lease.valid(4_201 * MS)).isFalse();
    }

    @Test
    void renewalIsDueWithNoProofAndOnceHalfTheLeaseIsGone() {
        ownTerm(0);
        assertThat(lease.renewalDue(2_000 * MS)).isTrue();
        lease.proved(2_000 * MS);
        assertThat(lease.renewalDue(2_474 * MS)).isFalse();
        assertThat(lease.renewalDue(2_475 * MS)).isTrue();
    }
}
