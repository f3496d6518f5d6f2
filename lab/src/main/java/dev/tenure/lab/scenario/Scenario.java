package dev.tenure.lab.scenario;

import dev.tenure.lab.store.Backend;
import dev.tenure.lab.store.TenureKvBackend;
import java.io.IOException;
import java.time.Duration;

/**
 * One failure mode as an experiment: the same workers, the same fault at the same point, once on
 * the naive lock and once on Tenure. The scenario drives an {@link ArmRun}; the checkers judge it.
 */
public interface Scenario {
    String name();

    /** One line: the fault and where it lands. */
    String summary();

    /** The resource for the Tenure arm: Tenure's fenced KV unless the scenario says otherwise. */
    default Backend tenureStore(ArmRun run) throws IOException, InterruptedException {
        return new TenureKvBackend(String.join(",", run.env().nodeEndpoints()), Duration.ofSeconds(5));
    }

    void run(ArmRun run) throws Exception;
}
