package dev.tenure.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.lab.process.LabNetwork;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NemesisTest {

    private static final Set<Nemesis.Kind> ALL = Nemesis.kinds(true, true);

    @Test
    void theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
        List<Nemesis.Step> a = Nemesis.schedule(42, 120_000, 3, 3, ALL);
        assertThat(Nemesis.schedule(42, 120_000, 3, 3, ALL)).isEqualTo(a);
        assertThat(Nemesis.schedule(43, 120_000, 3, 3, ALL)).isNotEqualTo(a);
    }

    @Test
    void faultsOverlapButNeverTwoOnTheNodesOrOnOneWorkerAndStayWithinTheRun() {
        int overlapping = 0;
        for (long seed = 0; seed < 200; seed++) {
            List<Nemesis.Step> steps = Nemesis.schedule(seed, 60_000, 3, 4, ALL);
            assertThat(steps).isNotEmpty();
            for (int i = 0; i < steps.size(); i++) {
                Nemesis.Step s = steps.get(i);
                assertThat(s.atMs()).isGreaterThanOrEqualTo(Nemesis.LEAD_IN_MS);
                assertThat(s.endMs()).isLessThanOrEqualTo(60_000);
                assertThat(s.forMs()).isBetween(s.kind().minMs, s.kind().maxMs);
                assertThat(s.target())
                        .isBetween(
                                s.kind().onNode() ? Nemesis.LEADER : 0, s.kind().onNode() ? 2 : 3);
                assertThat(Math.abs(s.amount()))
                        .isEqualTo(s.kind() == Nemesis.Kind.STEP_CLIENT_CLOCK ? Nemesis.CLOCK_STEP_S : 0);
                for (int j = 0; j < i; j++) {
                    Nemesis.Step earlier = steps.get(j);
                    boolean overlap = s.atMs() < earlier.endMs();
                    if (overlap) {
                        overlapping++;
                    }
                    boolean sameGroup = s.kind().onNode()
                            ? earlier.kind().onNode()
                            : !earlier.kind().onNode() && earlier.target() == s.target();
                    assertThat(overlap && sameGroup)
                            .as("seed %d: %s overlaps %s", seed, s.describe(), earlier.describe())
                            .isFalse();
                }
            }
        }
        assertThat(overlapping)
                .as("faults that start while another is in force")
                .isGreaterThan(100);
    }

    @Test
    void withoutClockStepsOrNamespacesNoneOfTheirFaultsIsDrawn() {
        for (long seed = 0; seed < 50; seed++) {
            assertThat(Nemesis.schedule(seed, 60_000, 3, 3, Nemesis.kinds(false, true)))
                    .noneMatch(s -> s.kind() == Nemesis.Kind.STEP_CLIENT_CLOCK);
            assertThat(Nemesis.schedule(seed, 60_000, 3, 3, Nemesis.kinds(true, false)))
                    .noneMatch(s -> s.kind().needsNamespaces());
        }
        assertThat(Nemesis.kinds(true, false))
                .containsExactlyInAnyOrder(
                        Nemesis.Kind.KILL_NODE,
                        Nemesis.Kind.PAUSE_NODE,
                        Nemesis.Kind.PARTITION_CLIENT,
                        Nemesis.Kind.RESET_CLIENT,
                        Nemesis.Kind.DELAY_CLIENT,
                        Nemesis.Kind.PAUSE_CLIENT,
                        Nemesis.Kind.STEP_CLIENT_CLOCK);
    }

    @Test
    void halfTheNodeFaultsHitTheLeader() {
        long leader = 0;
        long all = 0;
        for (long seed = 0; seed < 200; seed++) {
            for (Nemesis.Step s : Nemesis.schedule(seed, 60_000, 3, 3, ALL)) {
                if (s.kind().onNode()) {
                    all++;
                    leader += s.target() == Nemesis.LEADER ? 1 : 0;
                }
            }
        }
        assertThat((double) leader / all).isBetween(0.4, 0.6);
    }

    @Test
    void aPartitionBetweenNodesCutsTheLinksItNames() {
        assertThat(Nemesis.links(Nemesis.Kind.ISOLATE_NODE, 1, 3))
                .containsExactlyInAnyOrder(link(1, 0), link(0, 1), link(1, 2), link(2, 1));
        assertThat(Nemesis.links(Nemesis.Kind.ISOLATE_NODE_FULLY, 1, 3))
                .containsExactlyInAnyOrder(
                        link(1, 0),
                        link(0, 1),
                        link(1, 2),
                        link(2, 1),
                        link(1, LabNetwork.HUB),
                        link(LabNetwork.HUB, 1));
        assertThat(Nemesis.links(Nemesis.Kind.DEAF_NODE, 0, 3)).containsExactlyInAnyOrder(link(1, 0), link(2, 0));
        assertThat(Nemesis.links(Nemesis.Kind.MUTE_NODE, 0, 3)).containsExactlyInAnyOrder(link(0, 1), link(0, 2));
        assertThat(Nemesis.links(Nemesis.Kind.CUT_LINK, 2, 3)).containsExactlyInAnyOrder(link(2, 0), link(0, 2));
        assertThatThrownBy(() -> Nemesis.links(Nemesis.Kind.KILL_NODE, 0, 3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static LabNetwork.Link link(int from, int to) {
        return new LabNetwork.Link(from, to);
    }

    @Test
    void everyKindOfFaultIsDrawnOverAFewSeeds() {
        Set<Nemesis.Kind> seen = EnumSet.noneOf(Nemesis.Kind.class);
        for (long seed = 0; seed < 20; seed++) {
            Nemesis.schedule(seed, 60_000, 3, 3, ALL).forEach(s -> seen.add(s.kind()));
        }
        assertThat(seen).containsExactlyInAnyOrder(Nemesis.Kind.values());
    }

    @Test
    void describesAStepForThePrintedSchedule() {
        assertThat(new Nemesis.Step(3_000, Nemesis.Kind.KILL_NODE, 1, 2_500).describe())
                .isEqualTo("+3.0s kill -9 node 1 for 2.5s");
        assertThat(new Nemesis.Step(12_400, Nemesis.Kind.PARTITION_CLIENT, 2, 4_000).describe())
                .isEqualTo("+12.4s partition worker w2 for 4.0s");
        assertThat(new Nemesis.Step(5_000, Nemesis.Kind.STEP_CLIENT_CLOCK, 0, 3_000, -3_600).describe())
                .isEqualTo("+5.0s step wall clock of worker w0 by -3600s for 3.0s");
        assertThat(new Nemesis.Step(7_000, Nemesis.Kind.ISOLATE_NODE, Nemesis.LEADER, 2_000).describe())
                .isEqualTo("+7.0s cut the leader off from the other nodes for 2.0s");
        assertThat(new Nemesis.Step(7_000, Nemesis.Kind.CUT_LINK, 2, 2_000).describe())
                .isEqualTo("+7.0s cut the link between node 2 and the next node for 2.0s");
    }

    @Test
    void refusesAScheduleWithoutNodesOrWorkers() {
        assertThatThrownBy(() -> Nemesis.schedule(1, 60_000, 0, 3, ALL)).isInstanceOf(IllegalArgumentException.class);
    }
}
