package dev.tenure.cli;

import dev.tenure.server.fatal.Fatal;
import java.nio.charset.Charset;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tenure} command. */
@Command(
        name = "tenure",
        mixinStandardHelpOptions = true,
        // Every command and subcommand takes --help (and --version): the first thing a newcomer types.
        scope = CommandLine.ScopeType.INHERIT,
        version = "tenure 0.1.0",
        description = "Tenure: locks and leases whose fencing tokens storage can check.",
        subcommands = {
            ServerCommand.class,
            AcquireCommand.class,
            RunCommand.class,
            ElectCommand.class,
            ReleaseCommand.class,
            StatusCommand.class,
            LocksCommand.class,
            WatchCommand.class,
            ObserveCommand.class,
            KvCommand.class,
            CheckpointCommand.class,
            ClusterCommand.class,
            UpgradeDataCommand.class,
            RepairLogCommand.class,
            BenchCommand.class,
            LabCommand.class,
            CompletionCommand.class,
            BackupCommand.class,
            RestoreCommand.class,
            ManCommand.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:unexpected error",
            "2:bad input",
            "3:conflict (held, not owner, stale token)",
            "4:lease lost",
            "5:unavailable (no server or no quorum reachable in time)",
            "6:denied (not authenticated: a TLS handshake refused, and why; or not permitted)",
            "7:lab: a Tenure run broke a checked property",
            "8:lab: a naive run broke nothing (the fault did not land) or an experiment could not run"
        })
public final class Main {

    public static void main(String[] args) {
        if (args.length > 0 && "server".equals(args[0])) {
            // A node process ends itself on a fatal error (Fatal). Only here, in its own main:
            // Main.run also runs in test JVMs, which a fault of one test must not halt.
            Fatal.install();
        }
        // Here too, not in run: a test JVM keeps Netty's leak detection, which may catch a leak.
        LeakDetection.offUnlessAsked();
        System.exit(run(args));
    }

    static int run(String... args) {
        return run(new java.io.PrintWriter(System.err, true, Charset.defaultCharset()), args);
    }

    /** Runs {@code args} with picocli's and the commands' error messages going to {@code err}. */
    static int run(java.io.PrintWriter err, String... args) {
        return run(err, System::getenv, args);
    }

    /** As {@link #run(java.io.PrintWriter, String...)}, with the client options' defaults read from {@code env}. */
    static int run(java.io.PrintWriter err, Function<String, @Nullable String> env, String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setErr(err);
        cli.setExitCodeExceptionMapper(ExitCodes::of);
        cli.setDefaultValueProvider(new EnvDefaults(env));
        // One place decides how every command reports a failure: bad input found by picocli and
        // failures thrown by a command alike, as a line on stderr or, under --json, one JSON
        // object on stdout carrying the exit code the process ends with.
        boolean json = Failures.jsonRequested(args);
        Failures.jsonErrors(json);
        if (json) {
            cli.setParameterExceptionHandler((e, unused) -> printJson(e.getCommandLine(), e));
        }
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (json) {
                return printJson(commandLine, e);
            }
            commandLine.getErr().println("tenure: " + ExitCodes.describe(e));
            return ExitCodes.of(e);
        });
        String[] expanded;
        try {
            expanded = ServerConfigFile.expand(args);
        } catch (ExitCodes.CliException e) {
            if (json) {
                return printJson(cli, e);
            }
            err.println("tenure: " + e.getMessage());
            return e.exitCode();
        }
        return cli.execute(expanded);
    }

    private static int printJson(CommandLine commandLine, Exception e) {
        commandLine.getOut().println(Failures.jsonLine(e));
        commandLine.getOut().flush();
        return ExitCodes.of(e);
    }
}
