package dev.tenure.cli;

import dev.tenure.client.Lease;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

/**
 * How a command run by {@code tenure run --renew manual} renews the lease it runs under: a named
 * pipe, private to this run, whose path the command gets as {@code TENURE_RENEW}. Each line
 * written to it ({@code echo >"$TENURE_RENEW"}) renews the lease once. A pipe, not a signal or a
 * file: it needs no extra tool in the command, a write is delivered once, and a write blocks
 * (rather than being lost) while tenure is between two reads.
 */
final class RenewPipe implements AutoCloseable {

    private final Path dir;
    private final Path pipe;

    private RenewPipe(Path dir, Path pipe) {
        this.dir = dir;
        this.pipe = pipe;
    }

    /** Creates the pipe (mode 0600 in a 0700 directory) and renews {@code lease} per line. */
    static RenewPipe open(Lease lease) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(
                "tenure-run-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path pipe = dir.resolve("renew");
        Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", pipe.toString())
                .redirectErrorStream(true)
                .start();
        if (!mkfifo.waitFor(10, TimeUnit.SECONDS) || mkfifo.exitValue() != 0) {
            mkfifo.destroyForcibly();
            Files.deleteIfExists(dir);
            throw new IOException("mkfifo " + pipe + " failed: "
                    + new String(mkfifo.getInputStream().readAllBytes(), Charset.defaultCharset()).trim());
        }
        RenewPipe renewPipe = new RenewPipe(dir, pipe);
        // Each writer's close ends one read (EOF); opening again waits for the next writer.
        LineHeartbeat.start("tenure-renew-pipe", () -> new FileInputStream(pipe.toFile()), lease);
        return renewPipe;
    }

    Path path() {
        return pipe;
    }

    @Override
    public void close() throws IOException {
        // A reader still blocked in open() stays so; it is a daemon thread and the run is over.
        Files.deleteIfExists(pipe);
        Files.deleteIfExists(dir);
    }
}
