package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** The client options' {@code TENURE_*} variables: a variable sets the default, an option given wins. */
class EnvDefaultsTest {

    private static final Map<String, String> ENV = Map.of(
            "TENURE_ENDPOINT", "10.0.0.1:7420,10.0.0.2:7420",
            "TENURE_TTL", "30s",
            "TENURE_DISCONNECT_GRACE", "2s",
            "TENURE_TIMEOUT", "9s",
            "TENURE_TLS_CA", "/etc/tenure/ca.pem",
            "TENURE_TLS_CERT", "/etc/tenure/me.pem",
            "TENURE_TLS_KEY", "/etc/tenure/me.key",
            "TENURE_LOCK", "jobs/nightly",
            "TENURE_TOKEN", "42");

    private static <T> T parse(Class<T> type, Map<String, String> env, String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setDefaultValueProvider(new EnvDefaults(env::get));
        CommandLine.ParseResult result = cli.parseArgs(args);
        while (result.hasSubcommand()) {
            result = result.subcommand();
        }
        return type.cast(result.commandSpec().userObject());
    }

    @Test
    void eachVariableSetsItsClientOption() {
        AcquireCommand acquire = parse(AcquireCommand.class, ENV, "acquire", "a");
        assertThat(acquire.client.endpoints()).isEqualTo("10.0.0.1:7420,10.0.0.2:7420");
        assertThat(acquire.client.ttl).isEqualTo(Duration.ofSeconds(30));
        assertThat(acquire.client.disconnectGrace).isEqualTo(Duration.ofSeconds(2));
        assertThat(acquire.client.timeout).isEqualTo(Duration.ofSeconds(9));
        assertThat(acquire.client.tls.ca).isEqualTo(Path.of("/etc/tenure/ca.pem"));
        assertThat(acquire.client.tls.cert).isEqualTo(Path.of("/etc/tenure/me.pem"));
        assertThat(acquire.client.tls.key).isEqualTo(Path.of("/etc/tenure/me.key"));
    }

    @Test
    void anOptionGivenWinsOverItsVariable() {
        AcquireCommand acquire =
                parse(AcquireCommand.class, ENV, "acquire", "--ttl", "5s", "--endpoint", "127.0.0.1:9000", "a");
        assertThat(acquire.client.ttl).isEqualTo(Duration.ofSeconds(5));
        assertThat(acquire.client.endpoints()).isEqualTo("127.0.0.1:9000");
        assertThat(acquire.client.timeout).isEqualTo(Duration.ofSeconds(9));
    }

    @Test
    void withoutVariablesTheBuiltInDefaultsHold() {
        AcquireCommand acquire = parse(AcquireCommand.class, Map.of(), "acquire", "a");
        assertThat(acquire.client.ttl).isEqualTo(Duration.ofSeconds(10));
        assertThat(acquire.client.timeout).isEqualTo(Duration.ofSeconds(5));
        assertThat(acquire.client.disconnectGrace).isNull();
    }

    @Test
    void aCheckpointUnderTenureRunTakesTheGrantFromItsEnvironment() {
        CheckpointCommand checkpoint = parse(CheckpointCommand.class, ENV, "checkpoint", "done up to 7");
        assertThat(checkpoint.lock).isEqualTo("jobs/nightly");
        assertThat(checkpoint.token).isEqualTo(42);
        checkpoint = parse(CheckpointCommand.class, ENV, "checkpoint", "--token", "43", "done up to 8");
        assertThat(checkpoint.token).isEqualTo(43);
    }

    @Test
    void aReleaseTakesNoTokenFromTheEnvironment() {
        ReleaseCommand release = parse(ReleaseCommand.class, ENV, "release", "--token", "43", "a");
        assertThat(release.token).isEqualTo(43);
        assertThat(CliRun.of(ENV, "release", "a").exit()).isEqualTo(ExitCodes.BAD_INPUT);
    }

    @Test
    void aKvWriteIsNeverFencedByTheEnvironment() {
        KvCommand.Put put = parse(KvCommand.Put.class, ENV, "kv", "put", "k", "v");
        assertThat(put.fence).isNull();
    }

    @Test
    void theNodesOwnTlsOptionsAreNotTheClients() {
        ServerCommand server = parse(ServerCommand.class, ENV, "server");
        assertThat(server.tlsCert).isNull();
    }

    @Test
    void aVariableOfTheWrongFormIsBadInput() {
        CliRun run = CliRun.of(Map.of("TENURE_TTL", "soon"), "status", "--json");
        assertThat(run.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.out()).contains("\"code\":\"BAD_INPUT\"").contains("soon");
    }

    /** Every command that connects as a client takes every variable of the table. */
    @Test
    void everyClientCommandTakesEveryVariable() {
        int clientCommands = 0;
        for (CommandSpec command : tree(new CommandLine(new Main()).getCommandSpec())) {
            if (command.mixins().values().stream().noneMatch(m -> m.userObject() instanceof ClientOptions)) {
                continue;
            }
            clientCommands++;
            for (Map.Entry<String, String> e : EnvDefaults.CLIENT.entrySet()) {
                OptionSpec option = command.findOption(e.getKey());
                assertThat(option)
                        .as(command.qualifiedName() + " " + e.getKey())
                        .isNotNull();
                assertThat(EnvDefaults.variable(option)).isEqualTo(e.getValue());
            }
        }
        assertThat(clientCommands).isGreaterThanOrEqualTo(10);
    }

    @Test
    void docsCliListsEveryVariable() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "cli.md"), StandardCharsets.UTF_8);
        for (Map<String, String> table : java.util.List.of(EnvDefaults.CLIENT, EnvDefaults.GRANT)) {
            table.forEach(
                    (option, variable) -> assertThat(docs).as(variable).contains("| `" + variable + "` | `" + option));
        }
    }

    private static java.util.List<CommandSpec> tree(CommandSpec root) {
        java.util.List<CommandSpec> all = new java.util.ArrayList<>();
        all.add(root);
        root.subcommands().forEach((name, sub) -> {
            if (sub.getCommandSpec().name().equals(name)) {
                all.addAll(tree(sub.getCommandSpec()));
            }
        });
        return all;
    }
}
