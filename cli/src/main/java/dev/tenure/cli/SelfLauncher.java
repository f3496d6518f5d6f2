package dev.tenure.cli;

import dev.tenure.testkit.JavaCommand;
import java.util.List;

/** The command line that starts another `tenure` process from the same jar and Java. */
final class SelfLauncher {

    private SelfLauncher() {}

    static List<String> javaCommand(List<String> jvmOptions) {
        return JavaCommand.of(jvmOptions, classpath(), Main.class.getName());
    }

    /** The shaded jar when run from it, else this JVM's class path: everything `tenure` needs. */
    static String classpath() {
        return JavaCommand.selfClasspath(Main.class);
    }
}
