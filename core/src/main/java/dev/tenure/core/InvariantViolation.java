package dev.tenure.core;

/**
 * The state machine found its own state inconsistent. The replica must stop: answering with an
 * error would let a corrupted state keep serving.
 */
public final class InvariantViolation extends IllegalStateException {
    public InvariantViolation(String message) {
        super(message);
    }
}
