package dev.tenure.lab.process;

import dev.tenure.process.ChildProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A child process of the lab: its stdout lines go to a handler as they arrive (workers report
 * their events there), everything it prints is also kept in a log file, and the lab can write
 * lines to its stdin (the go-ahead at a named fault point) and signal it.
 */
public final class Proc implements AutoCloseable {
    private final String name;
    private final ChildProcess child;
    private final PrintWriter log;

    private Proc(String name, ChildProcess child, PrintWriter log) {
        this.name = name;
        this.child = child;
        this.log = log;
    }

    /** Starts {@code command}; {@code onLine} gets each stdout line on the pump thread. */
    public static Proc start(String name, List<String> command, Path logFile, Consumer<String> onLine)
            throws IOException {
        return start(name, command, Map.of(), logFile, onLine);
    }

    /** As above, with {@code env} added to this process's environment. */
    public static Proc start(
            String name, List<String> command, Map<String, String> env, Path logFile, Consumer<String> onLine)
            throws IOException {
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        OutputStream logOut = Files.newOutputStream(
                logFile, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        PrintWriter log = new PrintWriter(logOut, true, StandardCharsets.UTF_8);
        try {
            ChildProcess child = ChildProcess.start(
                    "lab-" + name,
                    builder,
                    line -> {
                        log(log, "out", line);
                        onLine.accept(line);
                    },
                    line -> log(log, "err", line));
            return new Proc(name, child, log);
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    private static void log(PrintWriter log, String stream, String line) {
        synchronized (log) {
            log.println(stream + ": " + line);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return child.pid();
    }

    public boolean isAlive() {
        return child.isAlive();
    }

    /** Writes one line to the process's stdin (ignored once it is gone). */
    public void send(String line) {
        child.send(line);
    }

    /** {@code kill -NAME pid}: STOP (returning once it has stopped), CONT, TERM, KILL. */
    public void signal(String signal) {
        try {
            child.signal(signal);
        } catch (IOException e) {
            if (!child.isAlive()) {
                return; // it exited first: nothing left to signal
            }
            throw new IllegalStateException("cannot signal " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted signalling " + name, e);
        }
    }

    /** SIGKILL, and waits until the process is gone. */
    public void kill9() {
        try {
            child.kill9();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the exit and for its last lines to be handled; false on timeout. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return child.awaitExit(timeout);
    }

    public int exitValue() {
        return child.exitValue();
    }

    /** Resumes a stopped process, then kills it (and anything it started) if it is still running. */
    @Override
    public void close() {
        child.close();
        synchronized (log) {
            log.close();
        }
    }
}
