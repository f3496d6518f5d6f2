package dev.tenure.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Signals to a process by pid, with {@code kill(1)}: STOP, CONT, TERM, KILL.
 *
 * <p>{@code kill -STOP} returns once the signal is pending, not once the process has stopped: each
 * thread stops when it next enters the kernel's signal handling, and on a loaded machine a thread
 * woken by other input (the go-ahead a lab worker waits for on stdin) can run on for milliseconds
 * first. A fault meant to land "exactly here" must not start the clock, or send the go-ahead,
 * before the process is frozen, so {@link #send} waits after STOP until every thread of the
 * process is in the stopped state ({@code /proc/PID/task/TID/stat}).
 */
public final class Signals {
    /** A process that has not frozen after this long has a problem a test should hear about. */
    private static final long STOP_TIMEOUT_MS = 10_000;

    private Signals() {}

    /**
     * {@code kill -SIGNAL pid}; after STOP, returns only once every thread of the process has stopped.
     *
     * @throws IOException kill failed (the process is gone, or no such signal), or the process did
     *     not stop within 10 s
     */
    public static void send(long pid, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        int code = kill.waitFor();
        if (code != 0) {
            throw new IOException("kill -" + signal + " " + pid + " exited " + code + ": " + output);
        }
        if (signal.equals("STOP")) {
            awaitStopped(pid);
        }
    }

    private static void awaitStopped(long pid) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_TIMEOUT_MS);
        while (!allThreadsStopped(pid)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("process " + pid + " not stopped " + STOP_TIMEOUT_MS + " ms after SIGSTOP");
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }

    /** True once no thread of {@code pid} can run: each is stopped, or gone (the process exited). */
    static boolean allThreadsStopped(long pid) throws IOException {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(tasks)) {
            return true; // exited: nothing of it runs
        }
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) threads::iterator) {
                char state = state(t.resolve("stat"));
                if (state != 'T' && state != 't' && state != 'Z' && state != 'X' && state != '-') {
                    return false;
                }
            }
        } catch (NoSuchFileException exitedMeanwhile) {
            return true;
        }
        return true;
    }

    /** The state letter of one thread, {@code -} if it is gone. */
    private static char state(Path stat) throws IOException {
        String s;
        try {
            s = Files.readString(stat);
        } catch (NoSuchFileException gone) {
            return '-';
        }
        // "tid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
        int close = s.lastIndexOf(')');
        return close < 0 || close + 2 >= s.length() ? '?' : s.charAt(close + 2);
    }
}
