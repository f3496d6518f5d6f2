package dev.tenure.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.lab.history.Violation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaCheckTest {

    @TempDir
    Path dir;

    @Test
    void aNodeLogReportingABrokenInvariantIsAViolation() throws Exception {
        Path clean = Files.writeString(dir.resolve("node-0.log"), "tenure: node 0 serving\n");
        Path broken = Files.writeString(
                dir.resolve("node-1.log"),
                "tenure: cluster error: dev.tenure.core.InvariantViolation: lock a held by two sessions\n");
        List<Violation> v = ReplicaCheck.invariantViolations(List.of(clean, broken, dir.resolve("node-2.log")));
        assertThat(v).singleElement().satisfies(x -> {
            assertThat(x.checker()).isEqualTo(ReplicaCheck.INVARIANTS);
            assertThat(x.message()).startsWith("node 1: ").contains("held by two sessions");
        });
    }

    @Test
    void replicasThatReportDifferentTokensAtOnePositionDisagree() {
        List<TreeMap<Long, Long>> seen = List.of(
                new TreeMap<>(java.util.Map.of(100L, 5L, 200L, 6L)),
                new TreeMap<>(java.util.Map.of(100L, 5L, 200L, 7L)),
                new TreeMap<>(java.util.Map.of(150L, 5L)));
        List<Violation> out = new ArrayList<>();
        assertThat(ReplicaCheck.compare(seen, out)).isEqualTo(2);
        assertThat(out).singleElement().satisfies(x -> {
            assertThat(x.checker()).isEqualTo(ReplicaCheck.AGREEMENT);
            assertThat(x.message()).isEqualTo("at log position 200 node 0 has token 6, node 1 7");
        });
    }

    @Test
    void everyTwoNodesAreComparedNotOnlyAgainstTheFirst() {
        List<TreeMap<Long, Long>> digests = List.of(
                new TreeMap<>(java.util.Map.of(100L, 11L)),
                new TreeMap<>(java.util.Map.of(300L, 42L)),
                new TreeMap<>(java.util.Map.of(300L, 43L)));
        List<Violation> out = new ArrayList<>();
        assertThat(ReplicaCheck.compare(digests, "state digest", out)).isEqualTo(1);
        assertThat(out)
                .singleElement()
                .satisfies(x ->
                        assertThat(x.message()).isEqualTo("at log position 300 node 1 has state digest 42, node 2 43"));
    }

    @Test
    void replicasThatAgreeWhereverTheyOverlapPass() {
        List<TreeMap<Long, Long>> seen = List.of(
                new TreeMap<>(java.util.Map.of(100L, 5L, 200L, 6L)),
                new TreeMap<>(java.util.Map.of(200L, 6L)),
                new TreeMap<>(java.util.Map.of(100L, 5L)));
        List<Violation> out = new ArrayList<>();
        assertThat(ReplicaCheck.compare(seen, out)).isEqualTo(2);
        assertThat(out).isEmpty();
    }
}
