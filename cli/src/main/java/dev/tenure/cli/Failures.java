package dev.tenure.cli;

import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.DeniedException;
import dev.tenure.client.InvalidRequestException;
import dev.tenure.client.KeyFencedException;
import dev.tenure.client.LeaseLostException;
import dev.tenure.client.LimitExceededException;
import dev.tenure.client.LockHeldException;
import dev.tenure.client.NotOwnerException;
import dev.tenure.client.SessionLostException;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureException;
import dev.tenure.client.UnavailableException;

/** Maps the client's typed failures to the CLI's exit codes, with a message a person can act on. */
final class Failures {

    private Failures() {}

    static CliException of(TenureException e) {
        if (e instanceof LockHeldException) {
            return new CliException(ExitCodes.CONFLICT, "held: " + e.getMessage());
        }
        if (e instanceof NotOwnerException n) {
            return new CliException(
                    ExitCodes.CONFLICT, "not owner: the current token is " + n.currentToken() + "; nothing changed");
        }
        if (e instanceof StaleTokenException s) {
            return new CliException(
                    ExitCodes.CONFLICT, "stale token: the current token is " + s.currentToken() + "; nothing changed");
        }
        if (e instanceof KeyFencedException) {
            return new CliException(
                    ExitCodes.CONFLICT,
                    "key fenced: " + e.getMessage() + "; nothing changed (--lock/--token to write it fenced, "
                            + KvCommand.OVERRIDE_FENCE + " to write it unfenced anyway)");
        }
        if (e instanceof LeaseLostException || e instanceof SessionLostException) {
            return new CliException(ExitCodes.LEASE_LOST, "lease lost: " + e.getMessage());
        }
        if (e instanceof DeniedException) {
            return new CliException(ExitCodes.DENIED, "denied: " + e.getMessage());
        }
        if (e instanceof UnavailableException) {
            return new CliException(ExitCodes.UNAVAILABLE, "unavailable: " + e.getMessage());
        }
        if (e instanceof InvalidRequestException || e instanceof LimitExceededException) {
            return new CliException(ExitCodes.BAD_INPUT, e.getMessage());
        }
        return new CliException(ExitCodes.UNEXPECTED, e.getMessage());
    }
}
