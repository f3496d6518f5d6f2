package dev.tenure.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerProbeTest {

    @Test
    void cpuComesFromUtimeAndStimeEvenWhenTheCommandNameHasSpacesAndParentheses() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0 1000 0 0";
        assertThat(ServerProbe.cpuNanosFromStat(stat, 100)).isEqualTo(300 * 10_000_000L);
    }

    @Test
    void ownProcessCpuAndRssAreReadable() throws IOException {
        long pid = ProcessHandle.current().pid();
        assertThat(ServerProbe.cpuNanos(pid)).isPositive();
        assertThat(ServerProbe.rssBytes(pid)).isGreaterThan(1024 * 1024);
    }

    @Test
    void classHistogramTotalsAndGrowth() throws IOException {
        String before = """
                12345:
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:          1000          64000  [B (java.base@17.0.15)
                   2:           100           2400  java.lang.String (java.base@17.0.15)
                Total          1100          66400
                """;
        String after = """
                 num     #instances         #bytes  class name (module)
                   1:          3000         192000  [B (java.base@17.0.15)
                   2:           200           4800  java.lang.String (java.base@17.0.15)
                   3:            10            320  dev.tenure.core.SessionRecord
                Total          3210         197120
                """;
        Map<String, Long> b = ServerProbe.parseHistogram(before);
        Map<String, Long> a = ServerProbe.parseHistogram(after);
        assertThat(a.get("")).isEqualTo(197_120L);
        assertThat(ServerProbe.topGrowth(b, a, 2))
                .containsExactly(Map.entry("[B", 128_000L), Map.entry("java.lang.String", 2_400L));
        assertThatThrownBy(() -> ServerProbe.parseHistogram("garbage")).hasMessageContaining("Total");
    }
}
