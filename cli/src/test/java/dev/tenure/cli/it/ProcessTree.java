package dev.tenure.cli.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The live processes of one `tenure run` command's tree, found by the environment that every
 * process of it inherits ({@code TENURE_LOCK=<lock>}), so a process that left the tree's process
 * group or was orphaned is still counted. Zombies are not counted: they run nothing and wait only
 * for their parent (or init) to collect their status.
 */
final class ProcessTree {

    private ProcessTree() {}

    /** The live processes whose environment says they run under {@code lock}: "pid pgid cmdline". */
    static List<String> live(String lock) {
        byte[] marker = ("TENURE_LOCK=" + lock + "\0").getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                String entry = describe(proc, marker);
                if (entry != null) {
                    found.add(entry);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return found;
    }

    private static String describe(Path proc, byte[] marker) {
        try {
            byte[] env = Files.readAllBytes(proc.resolve("environ"));
            if (indexOf(env, marker) < 0 && !startsWith(env, marker)) {
                return null;
            }
            String stat = Files.readString(proc.resolve("stat"));
            String[] fields = stat.substring(stat.lastIndexOf(") ") + 2).split(" ", -1);
            if (fields[0].equals("Z") || fields[0].equals("X")) {
                return null;
            }
            String cmd = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
                    .replace('\0', ' ')
                    .trim();
            return proc.getFileName() + " pgid " + fields[2] + " " + cmd;
        } catch (IOException | RuntimeException e) {
            return null; // gone meanwhile, or not ours to read
        }
    }

    private static boolean startsWith(byte[] env, byte[] marker) {
        if (env.length < marker.length) {
            return false;
        }
        for (int i = 0; i < marker.length; i++) {
            if (env[i] != marker[i]) {
                return false;
            }
        }
        return true;
    }

    /** Where {@code "\0" + marker} occurs in env (a variable that is not the first one). */
    private static int indexOf(byte[] env, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length < env.length; i++) {
            if (env[i] != 0) {
                continue;
            }
            for (int j = 0; j < marker.length; j++) {
                if (env[i + 1 + j] != marker[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
