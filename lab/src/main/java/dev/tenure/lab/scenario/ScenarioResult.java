package dev.tenure.lab.scenario;

/**
 * Both arms of one scenario. The experiment landed if the naive arm broke a property (the fault
 * did what it should); it passed if it landed and Tenure broke none.
 */
public record ScenarioResult(String scenario, ArmResult naive, ArmResult tenure, long durationMs) {
    public boolean ran() {
        return naive.error() == null && tenure.error() == null;
    }

    public boolean landed() {
        return naive.error() == null && !naive.violations().isEmpty();
    }

    public boolean tenureViolated() {
        return !tenure.violations().isEmpty();
    }

    public boolean passed() {
        return ran() && landed() && !tenureViolated();
    }
}
