package dev.tenure.cli.it;

import dev.tenure.testkit.Signals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Real `tenure` processes started from the shaded jar, with their output lines captured. */
final class Processes {

    /** Scales every wait in these tests; raise it on a slow machine (-Dtenure.test.timeScale=2). */
    static final double TIME_SCALE = Double.parseDouble(System.getProperty("tenure.test.timeScale", "1"));

    private Processes() {}

    static Duration scaled(Duration d) {
        return Duration.ofNanos((long) (d.toNanos() * TIME_SCALE));
    }

    static Path jar() {
        String jar = System.getProperty("tenure.jar");
        if (jar == null) {
            throw new IllegalStateException("tenure.jar system property not set (run through mvn verify)");
        }
        return Path.of(jar);
    }

    /** `tenure ARGS` exactly as a user runs it: the shaded jar alone. */
    static List<String> tenure(List<String> args) {
        return javaCommand(jar().toString(), "dev.tenure.cli.Main", args);
    }

    /** A test program (worker) on the jar plus the test classpath. */
    static List<String> worker(String mainClass, List<String> args) {
        return javaCommand(
                jar() + System.getProperty("path.separator") + System.getProperty("java.class.path"), mainClass, args);
    }

    private static List<String> javaCommand(String classpath, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx256m");
        cmd.add("--add-exports");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("--add-opens");
        cmd.add("java.base/sun.nio.ch=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /** A running process whose stdout and stderr lines are collected as they arrive. */
    static final class Running implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
        final List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());

        Running(List<String> command, java.util.Map<String, String> env) throws IOException {
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(env);
            process = pb.start();
            pump(process.getInputStream(), stdout, "out");
            pump(process.getErrorStream(), null, "err");
        }

        private void pump(java.io.InputStream in, BlockingQueue<String> queue, String name) {
            Thread t = new Thread(
                    () -> {
                        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = r.readLine()) != null) {
                                all.add(name + ": " + line);
                                if (queue != null) {
                                    queue.add(line);
                                }
                            }
                        } catch (IOException e) {
                            // process gone
                        }
                    },
                    "pump-" + name);
            t.setDaemon(true);
            t.start();
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

        int waitFor(Duration timeout) throws InterruptedException {
            if (!process.waitFor(scaled(timeout).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        "process did not exit within " + timeout + "; output:\n" + String.join("\n", all));
            }
            Thread.sleep(50); // let the pumps drain
            return process.exitValue();
        }

        String output() {
            return String.join("\n", all);
        }

        long pid() {
            return process.pid();
        }

        void signal(String name) throws IOException, InterruptedException {
            Signals.send(pid(), name);
        }

        void kill9() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor();
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                try {
                    signal("CONT");
                } catch (IOException | InterruptedException | IllegalStateException e) {
                    // best effort
                }
                process.destroyForcibly();
            }
        }
    }
}
