package dev.tenure.server.fatal;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JVM options that end a node which runs out of memory, and the check that its JVM has them.
 *
 * <p>An {@link OutOfMemoryError} can be thrown in any thread and caught by any code (Netty's event
 * loops log it and carry on), after which the node may serve nothing while looking alive. Only the
 * JVM sees every one, so the JVM must end the process, and without Java code: with the heap full
 * to the last byte, Java cannot even start the thread that would run a signal handler (the JVM
 * then prints "Exception java.lang.OutOfMemoryError occurred dispatching signal" and stays up).
 * Its own choices are {@code -XX:+ExitOnOutOfMemoryError}, whose fixed status 3 already means
 * "conflict" to the {@code tenure} command, {@code -XX:+CrashOnOutOfMemoryError} (an abort, a
 * crash report and possibly a core dump of the whole heap), or a command. The command here prints
 * the fatal line and sends the JVM SIGUSR1, which nothing in the process handles, so the kernel
 * ends it at once: a shell and Java report 138 (128 + 10), systemd "status=10/USR1".
 * {@code ExitOnOutOfMemoryError} stays as the backstop, for when the JVM cannot run the command
 * (no process can be forked) or the kernel ignores the signal (the JVM is PID 1 of a container,
 * which the kernel shields from signals it has no handler for): then the status is 3.
 */
public final class OutOfMemoryExit {
    /** Fatal's line for this cause; no ';' (the JVM splits its commands there) and no apostrophe (the quotes). */
    static final String LINE = Fatal.line(
            FatalCause.OUT_OF_MEMORY, "the JVM reported an OutOfMemoryError, naming the pool on stdout, by SIGUSR1");

    static final String COMMAND = "echo '" + LINE + "' >&2;kill -USR1 %p";

    /** For every JVM that runs a node: {@code bin/tenure}, the launchers of `tenure cluster start`, the ITs. */
    public static final List<String> JVM_OPTIONS =
            List.of("-XX:OnOutOfMemoryError=" + COMMAND, "-XX:+ExitOnOutOfMemoryError");

    private OutOfMemoryExit() {}

    /** Whether this JVM was started with {@link #JVM_OPTIONS}. */
    public static boolean armed() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return COMMAND.equals(hotspot.getVMOption("OnOutOfMemoryError").getValue())
                    && "true"
                            .equals(hotspot.getVMOption("ExitOnOutOfMemoryError")
                                    .getValue());
        } catch (IllegalArgumentException | UnsupportedOperationException notHotSpot) {
            return false;
        }
    }
}
