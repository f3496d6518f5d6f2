package dev.tenure.client;

/** Base of every exception the Tenure client throws; unchecked. Each subclass is one recovery. */
public class TenureException extends RuntimeException {
    public TenureException(String message) {
        super(message);
    }

    public TenureException(String message, Throwable cause) {
        super(message, cause);
    }
}
