package dev.tenure.lab.history;

/**
 * One write as the resource saw it, in the order the resource decided it: the accept log.
 *
 * @param seq position in the resource's log (1, 2, ...), across outcomes
 * @param nanos lab time of the decision
 * @param writer the worker that sent it
 * @param token the token it carried (the naive lock's generation for the naive store, which checks
 *     nothing)
 * @param n its number within the writer's critical section
 */
public record Accept(
        long seq,
        long nanos,
        String resource,
        String writer,
        String lock,
        long token,
        int n,
        String value,
        Outcome outcome) {

    /** ACCEPTED: applied. REJECTED: refused by the fence, nothing changed. UNKNOWN: the store failed. */
    public enum Outcome {
        ACCEPTED,
        REJECTED,
        UNKNOWN
    }

    /** The critical section this write belongs to: one holder, one grant. */
    public String section() {
        return writer + "/" + token;
    }
}
