package dev.tenure.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The checkers can fail: each deliberately broken variant of the system must be caught within a
 * small part of the seed budget, and the failing seed must replay to the same failure. A checker
 * that cannot see these would pass the sweep for the wrong reason.
 */
class MutationTest {
    /** Each mutation is caught within the first few dozen seeds; this leaves a wide margin. */
    static final int SEEDS_MAX = 300;

    @ParameterizedTest
    @EnumSource(value = SimConfig.Mutation.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void eachBrokenVariantIsCaught(SimConfig.Mutation mutation) {
        SimConfig.Options options = SimConfig.Options.mutated(mutation);
        Simulation.Outcome caught = firstFailure(options, SEEDS_MAX);
        assertThat(caught)
                .as(mutation + " was not caught within " + SEEDS_MAX + " seeds")
                .isNotNull();
        assertThat(caught.failure()).as(caught.report()).startsWith("holder:");
        assertThat(caught.report())
                .contains("-Dtenure.sim.seed=" + caught.seed())
                .contains("MUTATION=" + mutation)
                .contains("faults:")
                .contains("VIOLATION");
        Simulation.Outcome replay = Simulation.run(caught.seed(), options);
        assertThat(replay.failure()).isEqualTo(caught.failure());
        assertThat(replay.traceHash()).isEqualTo(caught.traceHash());
        System.out.println("sim: " + mutation + " caught by seed " + caught.seed() + ": " + caught.failure());
    }

    static Simulation.Outcome firstFailure(SimConfig.Options options, int seeds) {
        for (long seed = 1; seed <= seeds; seed++) {
            Simulation.Outcome o = Simulation.run(seed, options);
            if (!o.passed()) {
                return o;
            }
        }
        return null;
    }
}
