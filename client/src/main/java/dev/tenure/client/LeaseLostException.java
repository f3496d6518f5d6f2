package dev.tenure.client;

/** The lease is no longer valid: stop acting on it. */
public class LeaseLostException extends TenureException {
    private final LossReason reason;

    LeaseLostException(String lock, long token, LossReason reason) {
        super("lease of '" + lock + "' (token " + token + ") is lost: " + reason);
        this.reason = reason;
    }

    public LossReason reason() {
        return reason;
    }
}
