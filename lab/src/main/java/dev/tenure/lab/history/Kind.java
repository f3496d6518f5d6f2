package dev.tenure.lab.history;

/**
 * An operation is invoked once and completes at most once: OK (it happened), FAIL (it did not),
 * INDETERMINATE (unknown: the process died or the answer was lost). INFO is not an operation.
 */
public enum Kind {
    INVOKE,
    OK,
    FAIL,
    INDETERMINATE,
    INFO
}
