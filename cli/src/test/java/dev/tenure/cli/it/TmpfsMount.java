package dev.tenure.cli.it;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs mounted on a test's directory and unmounted after: a real file system with the property
 * the test needs (read-only, nearly full). Mounting needs root, as the machine and CI run; without
 * it the test fails with mount's own words, it never skips.
 */
final class TmpfsMount implements AutoCloseable {
    private final Path dir;

    private TmpfsMount(Path dir) {
        this.dir = dir;
    }

    /** {@code mount -t tmpfs -o OPTIONS tenure-test DIR}. */
    static TmpfsMount on(Path dir, String options) throws IOException, InterruptedException {
        run(List.of("mount", "-t", "tmpfs", "-o", options, "tenure-test", dir.toString()));
        return new TmpfsMount(dir);
    }

    /** {@code mount -o remount,OPTIONS DIR}: e.g. more room, with what it holds kept. */
    void remount(String options) throws IOException, InterruptedException {
        run(List.of("mount", "-o", "remount," + options, dir.toString()));
    }

    /** Writes {@code file} until its file system has no room left. */
    static void fillUp(Path file) throws IOException {
        byte[] chunk = new byte[1 << 20];
        try (var out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
    }

    @Override
    public void close() throws IOException {
        try {
            run(List.of("umount", dir.toString()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("umount " + dir + " interrupted");
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed (this test needs root): " + output);
        }
    }
}
