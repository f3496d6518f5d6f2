package dev.tenure.cli;

import java.io.Console;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One line on stderr that a long operation rewrites in place ({@code \r}) while a person watches:
 * what it does now and for how long. Only when stdout is a terminal: piped output, which scripts
 * and tests parse, stays exactly what it is without it, on both streams.
 */
final class Progress implements AutoCloseable {

    /** How often the elapsed time is redrawn: often enough to look alive, rarely enough to cost nothing. */
    static final Duration REDRAW_INTERVAL = Duration.ofMillis(500);

    /** A line no wider than a classic terminal, so that {@code \r} returns to its start. */
    static final int WIDTH_MAX = 79;

    private static final Progress NONE =
            new Progress(new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8), "", null);

    private final PrintStream out;
    private final String label;
    private final @Nullable ScheduledExecutorService redraw; // null: draws nothing
    private final long startNanos = System.nanoTime();
    private volatile String status = "";
    // Guarded by this: a redraw already under way when close() runs must not bring the line back.
    private int shownWidth;
    private boolean closed;

    private Progress(PrintStream out, String label, @Nullable ScheduledExecutorService redraw) {
        this.out = out;
        this.label = label;
        this.redraw = redraw;
    }

    /** A progress line for {@code label} on stderr if stdout is a terminal, else one that draws nothing. */
    static Progress start(String label) {
        return onTerminal() ? start(label, System.err) : NONE;
    }

    /**
     * The JDK's test for a terminal. Up to JDK 21, {@code System.console()} exists only when the
     * JVM runs interactively, standard input and output both a terminal; from JDK 22 on it may
     * exist anyway, and {@code Console.isTerminal()} (absent before 22, so looked up) says.
     */
    @SuppressWarnings("SystemConsoleNull") // null is the answer on the JDK 17 this targets; see above
    static boolean onTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return Boolean.TRUE.equals(Console.class.getMethod("isTerminal").invoke(console));
        } catch (NoSuchMethodException beforeJdk22) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    static Progress start(String label, PrintStream out) {
        ScheduledExecutorService redraw = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenure-progress");
            t.setDaemon(true); // a progress line never keeps the process up
            return t;
        });
        Progress progress = new Progress(out, label, redraw);
        progress.draw();
        long every = REDRAW_INTERVAL.toMillis();
        var unused = redraw.scheduleAtFixedRate(progress::draw, every, every, TimeUnit.MILLISECONDS);
        return progress;
    }

    /** What the operation does now, shown at once. */
    void status(String now) {
        status = now;
        if (redraw != null) {
            draw();
        }
    }

    private synchronized void draw() {
        if (closed) {
            return;
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
        String line = line(label, status, elapsed);
        out.print(frame(line, shownWidth));
        out.flush();
        shownWidth = line.length();
    }

    /**
     * {@code target} as a stream that clears the progress line before each write, so that what
     * the command prints starts at the line's start; the next redraw puts the line back below it.
     * Without a progress line, {@code target} itself.
     */
    PrintStream wrap(PrintStream target) {
        if (redraw == null) {
            return target;
        }
        return new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        write(new byte[] {(byte) b}, 0, 1);
                    }

                    @Override
                    public void write(byte[] bytes, int offset, int length) {
                        synchronized (Progress.this) {
                            if (shownWidth > 0) {
                                out.print(frame("", shownWidth) + "\r");
                                out.flush();
                                shownWidth = 0;
                            }
                            target.write(bytes, offset, length);
                            target.flush();
                        }
                    }
                },
                true,
                java.nio.charset.Charset.defaultCharset());
    }

    /** Clears the line, leaving the cursor at its start for what the command prints next. */
    @Override
    public void close() {
        if (redraw == null) {
            return;
        }
        redraw.shutdownNow();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            out.print(frame("", shownWidth));
            out.print('\r');
            out.flush();
            shownWidth = 0;
        }
    }

    /** The text of the line: label, status and elapsed whole seconds, cut to {@link #WIDTH_MAX}. */
    static String line(String label, String status, Duration elapsed) {
        String text = label + (status.isEmpty() ? "" : ": " + status) + " (" + elapsed.toSeconds() + "s)";
        return text.length() <= WIDTH_MAX ? text : text.substring(0, WIDTH_MAX - 3) + "...";
    }

    /**
     * What to print to replace a line {@code shownWidth} wide by {@code line}: back to the start,
     * the line, and blanks over what is left of a longer one before it.
     */
    static String frame(String line, int shownWidth) {
        return "\r" + line + " ".repeat(Math.max(0, shownWidth - line.length()));
    }
}
