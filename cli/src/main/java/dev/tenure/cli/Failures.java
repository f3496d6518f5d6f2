package dev.tenure.cli;

import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureException;
import dev.tenure.client.VersionMismatchException;

/** Maps the client's typed failures to the CLI's exit codes, with a message a person can act on. */
final class Failures {

    private Failures() {}

    static CliException of(TenureException e) {
        long current = e instanceof StaleTokenException s ? s.currentToken() : 0;
        return switch (e.code()) {
            case LOCK_HELD -> new CliException(ExitCodes.CONFLICT, "held: " + e.getMessage());
            case NOT_OWNER ->
                new CliException(
                        ExitCodes.CONFLICT, "not owner: the current token is " + current + "; nothing changed");
            case STALE_TOKEN ->
                new CliException(
                        ExitCodes.CONFLICT, "stale token: the current token is " + current + "; nothing changed");
            case KEY_FENCED ->
                new CliException(
                        ExitCodes.CONFLICT,
                        "key fenced: " + e.getMessage() + "; nothing changed (--lock/--token to write it fenced, "
                                + KvCommand.OVERRIDE_FENCE + " to write it unfenced anyway)");
            case VERSION_MISMATCH ->
                new CliException(
                        ExitCodes.CONFLICT,
                        "version mismatch: the current version is "
                                + (e instanceof VersionMismatchException v ? v.currentVersion() : 0)
                                + "; nothing changed");
            case EPHEMERAL_CONFLICT -> new CliException(ExitCodes.CONFLICT, "ephemeral conflict: " + e.getMessage());
            case LEASE_LOST, SESSION_LOST -> new CliException(ExitCodes.LEASE_LOST, "lease lost: " + e.getMessage());
            case DENIED -> new CliException(ExitCodes.DENIED, "denied: " + e.getMessage());
            case UNAVAILABLE -> new CliException(ExitCodes.UNAVAILABLE, "unavailable: " + e.getMessage());
            case INVALID_REQUEST, LIMIT_EXCEEDED -> new CliException(ExitCodes.BAD_INPUT, e.getMessage());
            default -> new CliException(ExitCodes.UNEXPECTED, e.getMessage());
        };
    }
}
