package dev.tenure.lab.scenario;

import dev.tenure.lab.history.Violation;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one arm showed.
 *
 * @param backend the resource's store: "plain", "tenure-kv", "jdbc-h2"
 * @param ops operations invoked (acquires, writes, releases)
 * @param rejected writes the store refused for a stale token
 * @param takeoverMs from the fault to the next holder's grant; -1 if none
 * @param error why the experiment could not run; null if it ran
 */
public record ArmResult(
        Arm arm,
        String backend,
        List<Violation> violations,
        long ops,
        int faults,
        long rejected,
        long takeoverMs,
        @Nullable String error) {
    public ArmResult {
        violations = List.copyOf(violations);
    }
}
