package dev.tenure.cli;

import dev.tenure.cli.ExitCodes.CliException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code tenure run}'s command in a process group of its own, under a small supervisor
 * that owns the group: JVM → {@code setpriv --pdeathsig USR1 sh} (the supervisor) → {@code setsid
 * env CMD} (the group's leader) → whatever CMD starts.
 *
 * <p>Why these tools: {@code setsid} (util-linux) is the standard way to start a program as the
 * leader of a new session, so of a new process group whose id is its pid, which one {@code kill}
 * reaches in full; the JVM has no call for it, nor for signalling a group. A parent-death signal
 * is the only thing that acts when the JVM is killed with SIGKILL, and it only reaches a direct
 * child, so it is set ({@code setpriv --pdeathsig}, util-linux) on the supervisor, which then
 * SIGKILLs the whole group. The supervisor is {@code /bin/sh}: no compiler, no second JVM.
 * {@code env --default-signal} (coreutils 8.31+) undoes the SIGINT and SIGQUIT that a shell
 * ignores in a background job, so CMD starts with the dispositions it would have had.
 *
 * <p>The supervisor's protocol: SIGTERM from the JVM sends SIGTERM (and SIGCONT, so a stopped
 * process sees it) to the group, then SIGKILL once the grace has passed, and exits when no
 * live process is left in the group. When the leader exits on its own, what is left of the
 * group is stopped the same way, then the supervisor exits with the leader's status. SIGINT and
 * SIGHUP are the JVM's to act on, so the supervisor ignores them (a terminal's Ctrl-C reaches
 * the JVM's process group, which the supervisor shares and the command's group does not).
 *
 * <p>A SIGKILL of the JVM: the parent-death signal is set before the shell runs, and the shell
 * checks that its parent is still the JVM after its handler is in place, so a JVM that died
 * before either leaves no command started. The signal goes to the supervisor when the JVM thread
 * that started it exits, which is the main thread for {@code tenure run}.
 */
final class Supervisor {

    // Arguments: the JVM's pid, the grace in milliseconds, then the command.
    private static final String SCRIPT = """
            jvm=$1 grace_ms=$2
            shift 2
            trap 'kill -s KILL -- "-$!" 2>/dev/null; exit 137' USR1
            trap 'term=1' TERM
            trap : INT HUP
            [ "$PPID" = "$jvm" ] || exit 1
            now() { read -r up _ </proc/uptime; t=${up%.*}${up#*.}; }
            alive() { kill -s 0 -- "-$pg" 2>/dev/null && grep -qsE "\\\\) [^ZX] [0-9]+ $pg " /proc/[0-9]*/stat; }
            stop() {
                kill -s TERM -- "-$pg" 2>/dev/null
                kill -s CONT -- "-$pg" 2>/dev/null
                now; deadline=$((t + (grace_ms + 9) / 10))
                while alive; do
                    now; [ "$t" -ge "$deadline" ] && break
                    sleep 0.02
                done
                kill -s KILL -- "-$pg" 2>/dev/null
                while alive; do sleep 0.01; done
            }
            command exec 3<&0 2>/dev/null || exec 3</dev/null
            [ -z "$term" ] || exit 143
            setsid env --default-signal=INT,QUIT -- "$@" <&3 3<&- &
            pg=$!
            exec 3<&-
            while :; do
                wait "$pg"; code=$?
                [ -z "$term" ] || break
                kill -s 0 "$pg" 2>/dev/null || break
            done
            if [ -n "$term" ] || alive; then
                stop
                [ -z "$term" ] || { wait "$pg"; code=$?; }
            fi
            exit "$code"
            """;

    private Supervisor() {}

    /**
     * Refuses to go on (exit 1) where the command could not be supervised: no {@code setsid},
     * {@code setpriv} or {@code env --default-signal}. Runs the whole chain once with {@code true}.
     */
    static void check() {
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("setsid", "setpriv", "env", "grep")) {
            if (!onPath(tool)) {
                missing.add(tool);
            }
        }
        if (missing.isEmpty()) {
            try {
                Process p = new ProcessBuilder(command(List.of("true"), Duration.ZERO))
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return;
                }
                p.destroyForcibly();
                missing.add("a working setpriv --pdeathsig, setsid and env --default-signal");
            } catch (IOException e) {
                missing.add("/bin/sh");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                missing.add("(interrupted)");
            }
        }
        throw new CliException(
                ExitCodes.UNEXPECTED,
                "tenure run cannot own the command's process tree here: missing " + String.join(", ", missing)
                        + " (setsid and setpriv from util-linux, env --default-signal from coreutils 8.31+);"
                        + " refusing to run the command unsupervised");
    }

    /** The supervisor's command line for CMD. */
    static List<String> command(List<String> cmd, Duration grace) {
        List<String> all = new ArrayList<>(List.of(
                "setpriv",
                "--pdeathsig",
                "USR1",
                "--",
                "/bin/sh",
                "-c",
                SCRIPT,
                "tenure-run-supervisor",
                Long.toString(ProcessHandle.current().pid()),
                Long.toString(grace.toMillis())));
        all.addAll(cmd);
        return all;
    }

    private static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator, -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return true;
            }
        }
        return false;
    }
}
