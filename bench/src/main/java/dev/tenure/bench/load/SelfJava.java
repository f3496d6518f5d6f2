package dev.tenure.bench.load;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line that starts another JVM on this process's own code (the shaded jar or the build tree). */
final class SelfJava {

    private SelfJava() {}

    /** {@code java OPTIONS ... -cp SELF}; the caller appends the main class and its arguments. */
    static List<String> command(List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classpath());
        return cmd;
    }

    private static String classpath() {
        try {
            Path self = Path.of(SelfJava.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            // From the shaded jar, that jar is everything; from a build tree, use the JVM's path.
            return self.toString().endsWith(".jar")
                            && !self.getFileName().toString().startsWith("tenure-bench")
                    ? self.toString()
                    : System.getProperty("java.class.path");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
