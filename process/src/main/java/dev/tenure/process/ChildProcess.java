package dev.tenure.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A child process whose output is read as it comes: each stdout and stderr line goes to a handler
 * on a pump thread of its own, so the child never blocks on a full pipe. Lines can be written to
 * its stdin and signals sent to it; closing it kills it and every process it started.
 */
public final class ChildProcess implements AutoCloseable {
    /** How long an exited process's last lines may take to reach the handlers. */
    private static final Duration DRAIN = Duration.ofSeconds(5);

    private final String name;
    private final Process process;
    private final PrintWriter stdin;
    private final CompletableFuture<Void> stdoutEnded;
    private final CompletableFuture<Void> stderrEnded;

    private ChildProcess(String name, Process process, Consumer<String> onStdout, Consumer<String> onStderr) {
        this.name = name;
        this.process = process;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.stdoutEnded = pump(process.getInputStream(), "out", onStdout);
        this.stderrEnded = pump(process.getErrorStream(), "err", onStderr);
    }

    /**
     * Starts {@code builder}'s command; {@code onStdout} and {@code onStderr} get each line on the
     * pump threads (a stream the builder redirected elsewhere has no lines).
     */
    public static ChildProcess start(
            String name, ProcessBuilder builder, Consumer<String> onStdout, Consumer<String> onStderr)
            throws IOException {
        return new ChildProcess(name, builder.start(), onStdout, onStderr);
    }

    /** As above, for {@code command} with nothing redirected. */
    public static ChildProcess start(
            String name, List<String> command, Consumer<String> onStdout, Consumer<String> onStderr)
            throws IOException {
        return start(name, new ProcessBuilder(command), onStdout, onStderr);
    }

    private CompletableFuture<Void> pump(InputStream in, String stream, Consumer<String> onLine) {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            onLine.accept(line);
                        }
                    } catch (IOException gone) {
                        // the process is gone; its exit is observed through the process itself
                    } finally {
                        ended.complete(null);
                    }
                },
                name + "-" + stream);
        t.setDaemon(true);
        t.start();
        return ended;
    }

    public String name() {
        return name;
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Completes once every stdout line has been handled (the child and all that share its stdout closed it). */
    public CompletableFuture<Void> stdoutEnded() {
        return stdoutEnded;
    }

    /** Writes one line to the process's stdin (ignored once it is gone). */
    public void send(String line) {
        stdin.println(line);
    }

    /** {@code kill -SIGNAL pid} ({@link Signals#send}: STOP returns once it has stopped). */
    public void signal(String signal) throws IOException, InterruptedException {
        Signals.send(pid(), signal);
    }

    /** SIGKILL, and waits until the process is gone. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * Waits up to {@code timeout} for the exit, then (up to 5 s more) for its last lines to be
     * handled; false if it has not exited.
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        try {
            CompletableFuture.allOf(stdoutEnded, stderrEnded).get(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException stillOpen) {
            // a process it started still holds the pipes: what it printed itself has been read
        } catch (ExecutionException cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
        return true;
    }

    public int exitValue() {
        return process.exitValue();
    }

    /**
     * Resumes a stopped process, then kills it and every process it started (SIGKILL) and waits
     * for it to exit. Idempotent.
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (IOException | IllegalStateException e) {
                // it may have exited in between
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            List<ProcessHandle> descendants = process.descendants().toList();
            process.destroyForcibly();
            descendants.forEach(ProcessHandle::destroyForcibly);
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stdin.close();
    }
}
