package dev.tenure.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NemesisTest {

    @Test
    void theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
        List<Nemesis.Step> a = Nemesis.schedule(42, 120_000, 3, 3);
        assertThat(Nemesis.schedule(42, 120_000, 3, 3)).isEqualTo(a);
        assertThat(Nemesis.schedule(43, 120_000, 3, 3)).isNotEqualTo(a);
    }

    @Test
    void faultsComeOneAtATimeWithinTheDurationAndOnExistingTargets() {
        for (long seed = 0; seed < 200; seed++) {
            List<Nemesis.Step> steps = Nemesis.schedule(seed, 60_000, 3, 4);
            assertThat(steps).isNotEmpty();
            long freeFrom = Nemesis.LEAD_IN_MS;
            for (Nemesis.Step s : steps) {
                assertThat(s.atMs())
                        .as("seed %d: %s starts after the previous fault healed", seed, s.describe())
                        .isGreaterThanOrEqualTo(freeFrom);
                assertThat(s.atMs() + s.forMs()).isLessThanOrEqualTo(60_000);
                assertThat(s.forMs()).isBetween(s.kind().minMs, s.kind().maxMs);
                assertThat(s.target()).isBetween(0, s.kind().onNode() ? 2 : 3);
                freeFrom = s.atMs() + s.forMs();
            }
        }
    }

    @Test
    void everyKindOfFaultIsDrawnOverAFewSeeds() {
        Set<Nemesis.Kind> seen = EnumSet.noneOf(Nemesis.Kind.class);
        for (long seed = 0; seed < 20; seed++) {
            Nemesis.schedule(seed, 60_000, 3, 3).forEach(s -> seen.add(s.kind()));
        }
        assertThat(seen).containsExactlyInAnyOrder(Nemesis.Kind.values());
    }

    @Test
    void describesAStepForThePrintedSchedule() {
        assertThat(new Nemesis.Step(3_000, Nemesis.Kind.KILL_NODE, 1, 2_500).describe())
                .isEqualTo("+3.0s kill -9 node 1 for 2.5s");
        assertThat(new Nemesis.Step(12_400, Nemesis.Kind.PARTITION_CLIENT, 2, 4_000).describe())
                .isEqualTo("+12.4s partition worker w2 for 4.0s");
    }

    @Test
    void refusesAScheduleWithoutNodesOrWorkers() {
        assertThatThrownBy(() -> Nemesis.schedule(1, 60_000, 0, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
