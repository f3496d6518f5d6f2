package dev.tenure.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ReportTest {

    private static Figures sample() {
        Histogram h = Figures.newHistogram();
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i * 10_000L); // 0.01 ms .. 10 ms
        }
        return Figures.of("parallel", 32, 1000, 2.0, h).with("latency", "acquire+release");
    }

    @Test
    void jsonLineHasTheFixedFieldsThenTheWorkloadsOwn() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Report(new PrintStream(bytes, true, StandardCharsets.UTF_8), true).print(sample());
        String line = bytes.toString(StandardCharsets.UTF_8).trim();
        assertThat(line.lines()).hasSize(1);
        JsonObject o = JsonParser.parseString(line).getAsJsonObject();
        assertThat(o.keySet())
                .startsWith(
                        "workload",
                        "clients",
                        "ops",
                        "seconds",
                        "ops_per_s",
                        "p50_ms",
                        "p90_ms",
                        "p99_ms",
                        "p999_ms",
                        "max_ms")
                .contains("latency");
        assertThat(o.get("ops_per_s").getAsDouble()).isEqualTo(500.0);
        assertThat(o.get("p50_ms").getAsDouble()).isBetween(4.9, 5.1);
        assertThat(o.get("max_ms").getAsDouble()).isBetween(9.9, 10.1);
    }

    @Test
    void tablePrintsAHeaderOnceAndOneRowPerFigure() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Report r = new Report(new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        r.print(sample());
        r.print(sample());
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("workload").contains("ops/s", "p99 ms");
        assertThat(lines[1]).startsWith("parallel").contains("500.0", "latency=acquire+release");
    }

    @Test
    void emptyHistogramReportsZeroLatencies() {
        Figures f = Figures.of("limit-core-apply", 1, 10, 1.0, Figures.newHistogram());
        assertThat(f.percentileMs(99)).isZero();
        assertThat(Report.toJson(f).get("max_ms").getAsDouble()).isZero();
    }
}
