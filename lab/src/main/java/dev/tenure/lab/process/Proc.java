package dev.tenure.lab.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child process of the lab: its stdout lines go to a handler as they arrive (workers report
 * their events there), everything it prints is also kept in a log file, and the lab can write
 * lines to its stdin (the go-ahead at a named fault point) and signal it.
 */
public final class Proc implements AutoCloseable {
    private final String name;
    private final Process process;
    private final PrintWriter stdin;
    private final PrintWriter log;
    private final Thread outPump;

    private Proc(String name, Process process, Path logFile, Consumer<String> onLine) throws IOException {
        this.name = name;
        this.process = process;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        OutputStream logOut = Files.newOutputStream(
                logFile, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        this.log = new PrintWriter(logOut, true, StandardCharsets.UTF_8);
        this.outPump = pump(process.getInputStream(), "out", onLine);
        pump(process.getErrorStream(), "err", line -> {});
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
        return new Proc(name, builder.start(), logFile, onLine);
    }

    private Thread pump(java.io.InputStream in, String stream, Consumer<String> onLine) {
        Thread t = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            synchronized (log) {
                                log.println(stream + ": " + line);
                            }
                            onLine.accept(line);
                        }
                    } catch (IOException gone) {
                        // the process is gone; its exit is observed through waitFor
                    }
                },
                "lab-" + name + "-" + stream);
        t.setDaemon(true);
        t.start();
        return t;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Writes one line to the process's stdin (ignored once it is gone). */
    public void send(String line) {
        stdin.println(line);
    }

    /** {@code kill -NAME pid}: STOP (returning once it has stopped), CONT, TERM, KILL. */
    public void signal(String signal) {
        try {
            Signals.send(pid(), signal);
        } catch (IOException e) {
            if (!process.isAlive()) {
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
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the exit and for its last stdout lines to be handled; false on timeout. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        outPump.join(TimeUnit.SECONDS.toMillis(5));
        return true;
    }

    public int exitValue() {
        return process.exitValue();
    }

    /** Resumes a stopped process, then kills it if it is still running. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (IllegalStateException e) {
                // it may have exited in between
            }
            kill9();
        }
        stdin.close();
        synchronized (log) {
            log.close();
        }
    }
}
