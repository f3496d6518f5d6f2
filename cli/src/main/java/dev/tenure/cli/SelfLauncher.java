package dev.tenure.cli;

import dev.tenure.process.JavaCommand;
import dev.tenure.server.fatal.OutOfMemoryExit;
import java.util.ArrayList;
import java.util.List;

/** The command line that starts another `tenure` process from the same jar and Java. */
final class SelfLauncher {

    private SelfLauncher() {}

    /**
     * Every JVM started this way ends itself when it runs out of memory ({@link OutOfMemoryExit}):
     * the nodes of `tenure cluster start`, the lab's and the bench's must, and for the rest it is
     * the fail-fast choice too.
     */
    static List<String> javaCommand(List<String> jvmOptions) {
        List<String> options = new ArrayList<>(jvmOptions);
        options.addAll(OutOfMemoryExit.JVM_OPTIONS);
        return JavaCommand.of(options, classpath(), Main.class.getName());
    }

    /** The shaded jar when run from it, else this JVM's class path: everything `tenure` needs. */
    static String classpath() {
        return JavaCommand.selfClasspath(Main.class);
    }
}
