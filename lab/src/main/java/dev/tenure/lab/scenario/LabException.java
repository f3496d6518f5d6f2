package dev.tenure.lab.scenario;

/** The experiment itself could not run as planned (a process did not start, an event never came). */
public final class LabException extends RuntimeException {
    public LabException(String message) {
        super(message);
    }

    public LabException(String message, Throwable cause) {
        super(message, cause);
    }
}
