package dev.tenure.client;

/** The session has ended (horizon passed, closed, or ended by the server); open a new one. */
public class SessionLostException extends TenureException {
    SessionLostException(String message) {
        super(message);
    }
}
