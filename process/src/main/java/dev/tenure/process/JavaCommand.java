package dev.tenure.process;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines for Java child processes started from this JVM's Java: `tenure` nodes, lab
 * workers, test programs, bench holders. Every child gets the flags Aeron and gRPC need, so any
 * of them can run a node or a client.
 */
public final class JavaCommand {

    /** Small JVMs: several nodes, workers and the test or lab JVM share two cores. */
    public static final List<String> SMALL_JVM = List.of("-XX:+UseSerialGC", "-Xmx256m", "-XX:TieredStopAtLevel=1");

    /**
     * A node's JVM, as {@code bin/tenure server} starts it: the heap its default limits are sized
     * for (a node whose limits its heap cannot hold refuses to start; see the server's
     * MemoryBudget). The heap is a maximum: it starts at 32 MiB and grows with the state, and its
     * young generation stays at most 32 MiB, which load would otherwise touch whole (a third of
     * the heap; docs/memory.md, 'Sizing'). Every 5 s the JVM gives the C heap's freed memory back
     * to the system: glibc keeps what the JIT and the libraries freed after a burst of load
     * (about 25 MiB of a loaded node's resident set; docs/memory.md).
     */
    public static final List<String> NODE_JVM =
            List.of("-XX:+UseSerialGC", "-Xmx512m", "-Xms32m", "-XX:MaxNewSize=32m", "-XX:TrimNativeHeapInterval=5000");

    /** {@link #NODE_JVM} that starts faster (no full JIT), for the nodes of tests and the lab. */
    public static final List<String> SMALL_NODE_JVM = nodeJvm("-Xmx512m");

    /** {@link #SMALL_NODE_JVM} with another maximum heap ({@code xmx}, such as "-Xmx256m"). */
    public static List<String> nodeJvm(String xmx) {
        List<String> options = new ArrayList<>();
        for (String option : NODE_JVM) {
            options.add(option.startsWith("-Xmx") ? xmx : option);
        }
        options.add("-XX:TieredStopAtLevel=1");
        return List.copyOf(options);
    }

    /** What Aeron (and the JDK internals it reaches into) needs on Java 17. */
    public static final List<String> ACCESS_FLAGS = List.of(
            "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens",
            "java.base/sun.nio.ch=ALL-UNNAMED");

    private JavaCommand() {}

    /** This JVM's own {@code java} executable. */
    public static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** {@code java JVM_OPTIONS <access flags> -cp CLASSPATH MAIN_CLASS}; the caller appends arguments. */
    public static List<String> of(List<String> jvmOptions, String classpath, String mainClass) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java().toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(ACCESS_FLAGS);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        return cmd;
    }

    /**
     * The class path that runs {@code anchor}'s code in a child: the jar it was loaded from when
     * that jar is whole (the shaded `tenure.jar`, a benchmarks jar), else this JVM's class path (a
     * build tree, or a module's own {@code tenure-*.jar}, which holds that module alone).
     */
    public static String selfClasspath(Class<?> anchor) {
        try {
            Path self = Path.of(
                    anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            String name = self.getFileName().toString();
            return name.endsWith(".jar") && !name.startsWith("tenure-")
                    ? self.toString()
                    : System.getProperty("java.class.path");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
