package dev.tenure.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "completion",
        description = {
            "Prints a shell completion script for tenure, generated from its commands and options.",
            "bash: source <(tenure completion bash), or save it under /etc/bash_completion.d/.",
            "zsh: source <(tenure completion zsh); the script runs in zsh through bashcompinit."
        })
final class CompletionCommand implements Callable<Integer> {

    /** The shells the script serves: zsh reads bash's through its compatibility layer. */
    enum Shell {
        bash,
        zsh
    }

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh.")
    Shell shell;

    @Option(names = "--json", description = "Report a failure as one JSON object on stdout (the script is text).")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        // One script for both shells: picocli's opens with a branch that, under zsh, loads
        // compinit and bashcompinit, so bash's `complete` and `compgen` work there as they are.
        System.out.print(AutoComplete.bash("tenure", spec.root().commandLine()));
        System.out.flush();
        return ExitCodes.OK;
    }
}
