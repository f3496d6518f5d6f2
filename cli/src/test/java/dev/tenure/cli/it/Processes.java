package dev.tenure.cli.it;

import dev.tenure.process.ChildProcess;
import dev.tenure.process.Dirs;
import dev.tenure.process.JavaCommand;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TestPorts;
import dev.tenure.server.fatal.OutOfMemoryExit;
import dev.tenure.testkit.TimeScale;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** Real `tenure` processes started from the shaded jar, with their output lines captured. */
final class Processes {

    private Processes() {}

    /** Every wait in these tests is scaled ({@link TimeScale}: raise it on a slow machine). */
    static Duration scaled(Duration d) {
        return TimeScale.scaled(d);
    }

    static Path jar() {
        String jar = System.getProperty("tenure.jar");
        if (jar == null) {
            throw new IllegalStateException("tenure.jar system property not set (run through mvn verify)");
        }
        return Path.of(jar);
    }

    /** `tenure ARGS` exactly as a user runs it: the shaded jar alone; a node gets a node's heap. */
    static List<String> tenure(List<String> args) {
        boolean node = !args.isEmpty() && "server".equals(args.get(0));
        return tenure(node ? JavaCommand.SMALL_NODE_JVM : JavaCommand.SMALL_JVM, args);
    }

    /**
     * `tenure ARGS` as one line for {@code sh -c}, each word quoted: the JVM's options carry
     * spaces, quotes and {@code ;} (its out-of-memory hook), which the shell must not split or run.
     */
    static String tenureShellLine(List<String> args) {
        StringBuilder line = new StringBuilder();
        for (String word : tenure(args)) {
            line.append(line.length() == 0 ? "" : " ")
                    .append('\'')
                    .append(word.replace("'", "'\\''"))
                    .append('\'');
        }
        return line.toString();
    }

    /** As {@link #tenure(List)}, in a JVM with {@code jvmOptions} (a smaller heap, say). */
    static List<String> tenure(List<String> jvmOptions, List<String> args) {
        return javaCommand(jvmOptions, jar().toString(), "dev.tenure.cli.Main", args);
    }

    /**
     * `tenure server` on {@code data} with {@code options}, on free ports and without an admin
     * endpoint, as a process a test expects to end (a start that must refuse): its exit status
     * and lines.
     */
    static Running serverOn(Path data, String... options) throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "server",
                "--data",
                data.toString(),
                "--port",
                Integer.toString(LoopbackPorts.freeTcpPort()),
                "--admin-port",
                "0",
                "--cluster-port-base",
                Integer.toString(TestPorts.freeAeronPortBase())));
        args.addAll(List.of(options));
        return new Running(tenure(args), Map.of());
    }

    /** A test program (worker) on the jar plus the test classpath. */
    static List<String> worker(String mainClass, List<String> args) {
        return javaCommand(
                JavaCommand.SMALL_JVM,
                jar() + System.getProperty("path.separator") + System.getProperty("java.class.path"),
                mainClass,
                args);
    }

    /** Every process ends itself on running out of memory, as bin/tenure's do. */
    private static List<String> javaCommand(
            List<String> jvmOptions, String classpath, String mainClass, List<String> args) {
        List<String> options = new ArrayList<>(jvmOptions);
        options.addAll(OutOfMemoryExit.JVM_OPTIONS);
        List<String> cmd = new ArrayList<>(JavaCommand.of(options, classpath, mainClass));
        cmd.addAll(args);
        return cmd;
    }

    /**
     * What the text log format puts before each message: time with its offset, level, the
     * logger's short name (ServerLogging.TEXT_PATTERN).
     */
    static final Pattern TEXT_LOG_PREFIX = Pattern.compile(
            "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) (TRACE|DEBUG|INFO|WARN|ERROR) +[\\w$]+ ");

    /**
     * A stderr line's message: a node's log line without the text format's prefix, so that the
     * tests match the node's wording whatever the time; any other line as it is.
     */
    static String logMessage(String line) {
        return TEXT_LOG_PREFIX.matcher(line).replaceFirst("");
    }

    /** A running process whose stdout and stderr lines are collected as they arrive. */
    static final class Running implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
        final List<String> all = Collections.synchronizedList(new ArrayList<>());
        /** The stderr lines as written, log format included. */
        final List<String> stderr = Collections.synchronizedList(new ArrayList<>());

        private final ChildProcess child;
        /** The data directory of the node this runs, or null if it runs no node. */
        private final Path nodeData;

        Running(List<String> command, Map<String, String> env) throws IOException {
            int server = command.indexOf("server");
            int data = command.indexOf("--data");
            nodeData =
                    server >= 0 && data > server && data + 1 < command.size() ? Path.of(command.get(data + 1)) : null;
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(env);
            child = ChildProcess.start(
                    "pump",
                    pb,
                    line -> {
                        all.add("out: " + line);
                        stdout.add(line);
                    },
                    line -> {
                        stderr.add(line);
                        all.add("err: " + logMessage(line));
                    });
            process = child.process();
        }

        /** The next stdout line, waiting up to {@code timeout}; fails with everything seen so far. */
        String nextLine(Duration timeout) throws InterruptedException {
            String line = stdout.poll(scaled(timeout).toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                throw new AssertionError("no output line within " + timeout + "; alive=" + process.isAlive()
                        + " output so far:\n" + String.join("\n", all));
            }
            return line;
        }

        /** Waits for the exit and for its last output lines to be collected; returns the exit code. */
        int waitFor(Duration timeout) throws InterruptedException {
            if (!child.awaitExit(scaled(timeout))) {
                throw new AssertionError(
                        "process did not exit within " + timeout + "; output:\n" + String.join("\n", all));
            }
            return process.exitValue();
        }

        String output() {
            return String.join("\n", all);
        }

        long pid() {
            return process.pid();
        }

        void signal(String name) throws IOException, InterruptedException {
            child.signal(name);
        }

        void kill9() throws InterruptedException {
            child.kill9();
        }

        /**
         * Resumes it if stopped and kills it, with every process it started; a node's Aeron
         * directory in shared memory goes with it, as its clean stop would have removed it.
         */
        @Override
        public void close() {
            child.close();
            if (nodeData != null) {
                try {
                    Dirs.deleteAeronDirs(nodeData);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
