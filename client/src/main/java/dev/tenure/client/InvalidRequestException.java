package dev.tenure.client;

/** The request was rejected as malformed or out of bounds; retrying it cannot help. */
public class InvalidRequestException extends TenureException {
    public InvalidRequestException(String message) {
        super(message);
    }
}
