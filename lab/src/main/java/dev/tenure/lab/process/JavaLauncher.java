package dev.tenure.lab.process;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines for Java child processes started from this JVM's Java: `tenure` nodes, lab
 * workers, the naive lock server. Every child gets the flags Aeron and gRPC need, so any of them
 * can run a node or a client.
 */
public final class JavaLauncher {

    /** Small JVMs: several nodes, workers and the lab share two cores. */
    public static final List<String> SMALL_JVM = List.of("-XX:+UseSerialGC", "-Xmx256m", "-XX:TieredStopAtLevel=1");

    private JavaLauncher() {}

    /** {@code java JVM_OPTIONS <flags> -cp CLASSPATH MAIN_CLASS}; the caller appends arguments. */
    public static List<String> javaCommand(List<String> jvmOptions, String classpath, String mainClass) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("--add-exports");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("--add-opens");
        cmd.add("java.base/sun.nio.ch=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        return cmd;
    }

    /** How to start a `tenure` process: the command up to and including its main class. */
    @FunctionalInterface
    public interface Tenure {
        List<String> command(List<String> jvmOptions);
    }
}
