package dev.tenure.cli;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line that starts another `tenure` process from the same jar and Java. */
final class SelfLauncher {

    private SelfLauncher() {}

    static List<String> javaCommand(List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("--add-exports");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("--add-opens");
        cmd.add("java.base/sun.nio.ch=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(Main.class.getName());
        return cmd;
    }

    private static String classpath() {
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
