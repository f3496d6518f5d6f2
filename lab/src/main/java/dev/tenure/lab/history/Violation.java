package dev.tenure.lab.history;

/** One broken property, named by the checker that found it. */
public record Violation(String checker, String message) {
    @Override
    public String toString() {
        return checker + ": " + message;
    }
}
