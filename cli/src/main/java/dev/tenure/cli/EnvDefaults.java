package dev.tenure.cli;

import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Takes the default of each client option from its {@code TENURE_*} environment variable, so a
 * shell or a unit file sets the connection once. An option given on the command line wins over
 * its variable, and the variable over the built-in default. A value of the wrong form is bad
 * input (exit 2), as it would be on the command line.
 */
final class EnvDefaults implements IDefaultValueProvider {

    /** The client options' variables, by option: the table in docs/cli.md. */
    static final Map<String, String> CLIENT = Map.of(
            "--endpoint", "TENURE_ENDPOINT",
            "--ttl", "TENURE_TTL",
            "--disconnect-grace", "TENURE_DISCONNECT_GRACE",
            "--timeout", "TENURE_TIMEOUT",
            "--tls-ca", TlsOptions.CA_ENV,
            "--tls-cert", TlsOptions.CERT_ENV,
            "--tls-key", TlsOptions.KEY_ENV);

    /**
     * The grant a checkpoint is written under: {@code tenure run} gives its CMD the lock and the
     * token it holds, so that {@code tenure checkpoint VALUE} inside CMD needs neither. Not for kv
     * writes: a fence is asked for, never implied, or every plain put under {@code tenure run}
     * would turn fenced. Not for a release: only the holding session may release, and CMD's own
     * {@code tenure release} is another session.
     */
    static final Map<String, String> GRANT = Map.of("--lock", "TENURE_LOCK", "--token", "TENURE_TOKEN");

    private static final Set<String> GRANT_COMMANDS = Set.of("checkpoint");

    private final Function<String, @Nullable String> env;

    EnvDefaults(Function<String, @Nullable String> env) {
        this.env = env;
    }

    @Override
    public @Nullable String defaultValue(ArgSpec argument) {
        if (!(argument instanceof OptionSpec option)) {
            return null;
        }
        String variable = variable(option);
        if (variable == null) {
            return null;
        }
        String value = env.apply(variable);
        return value == null || value.isBlank() ? null : value.strip();
    }

    /** The variable that sets {@code option}, or null: only client options and a grant's lock and token. */
    static @Nullable String variable(OptionSpec option) {
        String name = option.longestName();
        CommandSpec command = option.command();
        if (command == null) {
            return null;
        }
        if (GRANT.containsKey(name) && GRANT_COMMANDS.contains(command.name())) {
            return GRANT.get(name);
        }
        if (!CLIENT.containsKey(name)) {
            return null;
        }
        // Only where the option is the client's own (from ClientOptions): `tenure server --tls-cert`
        // is the node's certificate, not the one a client presents.
        for (CommandSpec mixin : command.mixins().values()) {
            if (mixin.userObject() instanceof ClientOptions && hasOption(mixin, name)) {
                return CLIENT.get(name);
            }
        }
        return null;
    }

    private static boolean hasOption(CommandSpec spec, String name) {
        if (spec.findOption(name) != null) {
            return true;
        }
        for (CommandSpec nested : spec.mixins().values()) {
            if (hasOption(nested, name)) {
                return true;
            }
        }
        return false;
    }
}
