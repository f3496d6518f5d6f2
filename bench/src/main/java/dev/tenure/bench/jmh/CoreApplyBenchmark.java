package dev.tenure.bench.jmh;

import dev.tenure.bench.limits.CoreCycle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The core's apply rate: acquire + release cycles per second on one thread through
 * {@code StateMachine.apply} (invariant checks included). The ceiling of any replica: a cluster
 * cannot commit cycles faster than one thread applies them. Short iterations; run with {@code
 * java -jar bench/target/benchmarks.jar CoreApply} after {@code mvn -Pjmh package -pl bench -am}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-XX:+UseSerialGC", "-Xmx512m"})
public class CoreApplyBenchmark {

    // JMH runs @Setup before any @Benchmark method: the field is never read unset.
    @SuppressWarnings("NullAway.Init")
    private CoreCycle cycle;

    @Setup
    public void setUp() {
        cycle = new CoreCycle();
    }

    @Benchmark
    public long acquireRelease() {
        return cycle.acquireRelease();
    }
}
