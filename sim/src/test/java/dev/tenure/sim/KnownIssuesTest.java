package dev.tenure.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Known issues the simulation found and that are not fixed yet (docs/lab.md, "Simulation"). The
 * default sweep keeps out of their way; these tests turn each back on and assert that the
 * checkers still find it, so the reproducer stays alive. When an issue is fixed, its test fails:
 * then turn it into a regression test that the issue stays gone (as
 * {@link SimulationTest#reacquiringWhileAnEarlierGrantIsStillEndingKeepsEveryProperty}).
 */
class KnownIssuesTest {

    /**
     * Without a disconnect grace (the default, for the fastest handover), a connection reset by
     * the network (not by the client's death) makes the node end the session at once as
     * DISCONNECTED, while the client still counts its leases valid until its horizon. That is the
     * documented price of a grace of 0 (GUARANTEES.md, section 1); with a grace the default sweep
     * resets connections and holds every property. See {@link Fault.Kind#RESET}.
     */
    @Test
    void withoutAGraceAConnectionResetEndsTheSessionBeforeTheClientsHorizon() {
        Simulation.Outcome caught =
                MutationTest.firstFailure(new SimConfig.Options(SimConfig.Mutation.NONE, true, false, false), 400);
        assertThat(caught).as("no longer reproduced: fixed?").isNotNull();
        assertThat(caught.failure()).as(caught.report()).startsWith("holder:");
        assertThat(caught.report()).contains("DISCONNECTED");
        System.out.println(
                "sim: known issue (connection reset) shown by seed " + caught.seed() + ": " + caught.failure());
    }
}
