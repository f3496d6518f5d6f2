package dev.tenure.server.fatal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a server process ends on a fatal error: one line on stderr that names what stopped
 * and where, then {@link Runtime#halt} with the cause's status.
 *
 * <p>Halt, not exit: shutdown hooks would close a node whose threads may be wedged (with its
 * accept loop dead, gRPC's shutdown waits forever for the listening socket to close), and a
 * restart needs nothing a hook does, since every acknowledged write is already fsynced. The line
 * goes to file descriptor 2 from a thread started at {@link #install()}, so neither a lock held
 * on {@code System.err} nor a full pipe nobody reads can keep the process up: the halt comes
 * after at most {@link #FLUSH_MS_MAX}, written or not. Nothing here needs a new thread, a file
 * descriptor or, past building the line, memory: at the fatal moment there may be none.
 *
 * <p>The fatal line is the one thing a node writes past its log (SLF4J): with the heap exhausted
 * or the logging library itself failing, a logger may write nothing, and this line is what a
 * supervisor and an operator read to learn why the node ended. It is built and written here with
 * as little as possible: a pre-built line if even the string cannot be made, and the descriptor
 * opened at install.
 *
 * <p>Only a process that called {@link #install()} halts: the server's {@code main}. Anywhere
 * else (a test that runs the command in its own JVM) {@link #exit} prints the line and returns.
 */
public final class Fatal {
    private static final Logger LOG = LoggerFactory.getLogger(Fatal.class);

    /** How long the line may take to reach stderr before the halt goes on without it. */
    static final long FLUSH_MS_MAX = 1000;

    private static final AtomicBoolean ending = new AtomicBoolean();
    private static volatile @Nullable Writer writer; // non-null once installed
    private static volatile boolean stopping;

    private Fatal() {}

    /**
     * Makes this process end on a fatal error: {@link #exit} halts from now on, and so does a
     * thread that dies of an exception nothing caught (its state is unknown, and so the node's).
     * Warns when the JVM lacks the options that end it on running out of memory.
     */
    public static synchronized void install() {
        if (writer != null) {
            return;
        }
        // Built once now: the classes they need are loaded before memory or descriptors run out.
        for (FatalCause cause : FatalCause.values()) {
            Writer.fallback(cause);
            line(cause, "");
        }
        writer = Writer.started();
        Thread.setDefaultUncaughtExceptionHandler(Fatal::uncaught);
    }

    /**
     * In a process that ends on fatal errors, warns when the JVM lacks the options that end it on
     * running out of memory. Apart from {@link #install()}, which runs before the node's log is
     * set up, so that the warning is written in the log's format.
     */
    public static void warnIfOutOfMemoryUnarmed() {
        if (writer != null && !OutOfMemoryExit.armed()) {
            LOG.warn("tenure: warning: this JVM was started without " + OutOfMemoryExit.JVM_OPTIONS
                    + ": out of memory would leave the node running without serving (bin/tenure adds them)");
        }
    }

    /**
     * The process is stopping as asked (SIGTERM, SIGINT): a thread that dies from now on was most
     * likely stopped by the shutdown, so it is reported as the JVM would, not as a fatal error.
     */
    public static void stopping() {
        stopping = true;
    }

    /**
     * Prints {@code what} as the fatal line of {@code cause} and, in an installed process, halts
     * with the cause's status: never returns there. The first fatal error ends the process; a thread
     * that reports another meanwhile waits for the halt rather than go on.
     */
    public static void exit(FatalCause cause, String what) {
        Writer w = writer;
        if (w == null) {
            // Straight to stderr, not through the log: the fatal line must be written whatever
            // state the log is in (its level, its format, a logging library that failed), and a
            // supervisor or test reads it as this exact line.
            System.err.println(line(cause, what));
            return;
        }
        if (!ending.compareAndSet(false, true)) {
            while (true) {
                LockSupport.park();
            }
        }
        byte[] bytes;
        try {
            bytes = (line(cause, what) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (Throwable noMemory) {
            bytes = Writer.fallback(cause);
        }
        w.write(bytes, cause.exitStatus());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FLUSH_MS_MAX);
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left); // the writer halts first unless stderr blocks
        }
        Runtime.getRuntime().halt(cause.exitStatus());
    }

    /** The fatal line: {@code tenure: fatal: MEANING (exit STATUS): WHAT}. */
    static String line(FatalCause cause, String what) {
        return "tenure: fatal: " + cause.meaning() + " (exit " + cause.exitStatus() + "): " + what;
    }

    private static void uncaught(Thread thread, Throwable error) {
        if (stopping) {
            LOG.error("Exception in thread \"" + thread.getName() + "\"", error);
            return;
        }
        exit(FatalCause.of(error, FatalCause.THREAD_DIED), "thread " + thread.getName() + ": " + error);
    }

    /** Writes the line to descriptor 2 and halts; waits, started, until there is a line. */
    private static final class Writer extends Thread {
        private static final Map<FatalCause, byte[]> FALLBACKS = new EnumMap<>(FatalCause.class);
        private final FileOutputStream stderr = new FileOutputStream(FileDescriptor.err);
        private volatile byte @Nullable [] line;
        private volatile int status;

        private Writer() {
            super("tenure-fatal");
            setDaemon(true);
        }

        static Writer started() {
            Writer w = new Writer();
            w.start();
            return w;
        }

        /** The line without its details, made in advance for when there is no memory to make one. */
        static synchronized byte[] fallback(FatalCause cause) {
            byte[] made = FALLBACKS.get(cause);
            if (made == null) {
                made = (line(cause, "details lost: no memory to write them") + "\n").getBytes(StandardCharsets.UTF_8);
                FALLBACKS.put(cause, made);
            }
            return made;
        }

        void write(byte[] bytes, int exitStatus) {
            status = exitStatus;
            line = bytes;
            LockSupport.unpark(this);
        }

        @Override
        public void run() {
            byte[] bytes;
            while ((bytes = line) == null) {
                LockSupport.park(this);
            }
            try {
                stderr.write(bytes);
            } catch (IOException closed) {
                // Nowhere to say it; the status still does.
            }
            Runtime.getRuntime().halt(status);
        }
    }
}
