package dev.tenure.cli;

import dev.tenure.lab.process.JavaLauncher;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

/** The command line that starts another `tenure` process from the same jar and Java. */
final class SelfLauncher {

    private SelfLauncher() {}

    static List<String> javaCommand(List<String> jvmOptions) {
        return JavaLauncher.javaCommand(jvmOptions, classpath(), Main.class.getName());
    }

    /** The shaded jar when run from it, else this JVM's class path: everything `tenure` needs. */
    static String classpath() {
        try {
            Path self = Path.of(Main.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            // From the shaded jar, that jar is everything; from a build tree, use the JVM's path.
            return self.toString().endsWith(".jar") ? self.toString() : System.getProperty("java.class.path");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
