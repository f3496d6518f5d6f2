package dev.tenure.cli;

import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.storage.CorruptDataException;
import org.jspecify.annotations.Nullable;

/** The exit codes every command uses, and the mapping from failures to them. */
final class ExitCodes {

    static final int OK = 0;
    static final int UNEXPECTED = 1;
    static final int BAD_INPUT = 2;
    static final int CONFLICT = 3;
    static final int LEASE_LOST = 4;
    static final int UNAVAILABLE = 5;
    /** Not authenticated (a TLS handshake refused for good) or not permitted. */
    static final int DENIED = 6;

    private ExitCodes() {}

    static int of(Throwable e) {
        if (e instanceof CliException c) {
            return c.exitCode();
        }
        // A node that will not start from a damaged file says so with its own status.
        if (e instanceof CorruptDataException) {
            return FatalCause.CORRUPT_DATA.exitStatus();
        }
        // A value picocli cannot parse (or a missing parameter) is bad input like any other.
        if (e instanceof IllegalArgumentException || e instanceof picocli.CommandLine.ParameterException) {
            return BAD_INPUT;
        }
        return UNEXPECTED;
    }

    /**
     * The code a {@code --json} error names: the node's own code for a refused call (LOCK_HELD,
     * STALE_TOKEN, ...), else the CLI's name of the exit code (BAD_INPUT, CORRUPT_DATA, ...).
     */
    static String code(Throwable e) {
        if (e instanceof CliException c) {
            return c.code();
        }
        if (e instanceof CorruptDataException) {
            return "CORRUPT_DATA";
        }
        return name(of(e));
    }

    static String name(int exitCode) {
        return switch (exitCode) {
            case OK -> "OK";
            case BAD_INPUT -> "BAD_INPUT";
            case CONFLICT -> "CONFLICT";
            case LEASE_LOST -> "LEASE_LOST";
            case UNAVAILABLE -> "UNAVAILABLE";
            case DENIED -> "DENIED";
            default -> exitCode == FatalCause.CORRUPT_DATA.exitStatus() ? "CORRUPT_DATA" : "UNEXPECTED";
        };
    }

    static String describe(Throwable e) {
        if (e instanceof CorruptDataException) {
            return FatalCause.CORRUPT_DATA.meaning() + ": " + e.getMessage();
        }
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.toString() : message;
    }

    /**
     * Exits 4 at once, without closing the session: a lease given up while it may still be
     * current must not be recorded as a clean release, which a Close would say. The node ends the
     * session as DISCONNECTED once the connection closes and the grace has passed.
     */
    static void haltLeaseLost(String message) {
        CliChannels.stopNow(); // else the exit itself may take 300 ms: see CliChannels
        if (Failures.jsonErrors()) {
            System.out.println(Failures.jsonLine(message, name(LEASE_LOST), LEASE_LOST));
        } else {
            System.out.flush();
            System.err.println("tenure: " + message);
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(LEASE_LOST);
    }

    /** A failure that knows its exit code. */
    static final class CliException extends RuntimeException {
        private final int exitCode;
        private final String code;

        CliException(int exitCode, @Nullable String message) {
            this(exitCode, name(exitCode), message);
        }

        CliException(int exitCode, String code, @Nullable String message) {
            super(message, null, false, false);
            this.exitCode = exitCode;
            this.code = code;
        }

        int exitCode() {
            return exitCode;
        }

        String code() {
            return code;
        }
    }
}
