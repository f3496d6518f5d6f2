package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureException;
import dev.tenure.client.VersionMismatchException;

/**
 * Maps the client's typed failures to the CLI's exit codes, with a message a person can act on;
 * and prints every failure the one way a run asks for: a line on stderr, or under {@code --json}
 * one JSON object on stdout.
 */
final class Failures {

    static final String JSON = "--json";

    /**
     * Whether this process was asked for JSON: read by the exits that bypass picocli (a lost lease
     * halts the JVM at once). Set once per run, before any command starts.
     */
    private static volatile boolean jsonErrors;

    private Failures() {}

    /**
     * Whether {@code args} ask for JSON: {@code --json} among the options, before a {@code --}
     * that starts another command's arguments (tenure run, tenure elect). Read from the raw
     * arguments, not the parse, so that an error in parsing itself is reported as JSON too.
     */
    static boolean jsonRequested(String... args) {
        for (String arg : args) {
            if ("--".equals(arg)) {
                return false;
            }
            if (JSON.equals(arg)) {
                return true;
            }
        }
        return false;
    }

    static void jsonErrors(boolean json) {
        jsonErrors = json;
    }

    static boolean jsonErrors() {
        return jsonErrors;
    }

    /** The one JSON object a failure is under {@code --json}. */
    static String jsonLine(Throwable e) {
        return jsonLine(ExitCodes.describe(e), ExitCodes.code(e), ExitCodes.of(e));
    }

    static String jsonLine(String error, String code, int exit) {
        JsonObject o = new JsonObject();
        o.addProperty("error", error);
        o.addProperty("code", code);
        o.addProperty("exit", exit);
        return Json.line(o);
    }

    static CliException of(TenureException e) {
        CliException mapped = map(e);
        // Under --json the node's own code is what a script branches on, not the exit code's name.
        return new CliException(mapped.exitCode(), e.code().name(), mapped.getMessage());
    }

    private static CliException map(TenureException e) {
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
