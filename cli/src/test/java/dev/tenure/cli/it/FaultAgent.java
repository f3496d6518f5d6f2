package dev.tenure.cli.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A Java agent that an IT loads into a running node (through the JDK's attach API) to cause a
 * fault the node cannot be driven into from outside: a thread of its own that ends, or one that
 * dies of an exception nothing catches. The node's code is unchanged; only the fault is injected.
 *
 * <p>Its arguments: {@code stop:NAME} stops the node's thread named NAME where it runs (a
 * {@link ThreadDeath} thrown into it, as a bug's exception would be), {@code throw} starts a thread
 * that throws.
 */
public final class FaultAgent {
    /** The thread {@code throw} starts, and what it throws. */
    static final String THROWING_THREAD = "tenure-test-fault";

    static final String THROWN = "thrown by the test's fault agent";

    private FaultAgent() {}

    @SuppressWarnings({"deprecation", "removal"})
    public static void agentmain(String args) {
        if (args.startsWith("stop:")) {
            String name = args.substring("stop:".length());
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.getName().equals(name)) {
                    thread.stop(); // Java 17: delivers ThreadDeath into the thread, waking it if parked
                    return;
                }
            }
            throw new IllegalArgumentException("no thread named " + name);
        }
        if (args.equals("throw")) {
            Thread thrower = new Thread(
                    () -> {
                        throw new IllegalStateException(THROWN);
                    },
                    THROWING_THREAD);
            thrower.start();
            return;
        }
        throw new IllegalArgumentException("unknown fault " + args);
    }

    /** A jar that holds this class alone and names it as its agent. */
    static Path jar(Path dir) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Agent-Class"), FaultAgent.class.getName());
        String entry = FaultAgent.class.getName().replace('.', '/') + ".class";
        Path jar = dir.resolve("fault-agent.jar");
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                var bytes = FaultAgent.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
