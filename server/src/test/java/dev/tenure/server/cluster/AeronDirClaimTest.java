package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node restarting on its Aeron directory finds the dead driver's CnC file there until its own
 * driver rewrites it; another node's start sweeping at that moment must keep the directory. Its
 * claim, held by another process as a node's is, is what keeps it.
 */
class AeronDirClaimTest {

    @TempDir
    Path parent;

    @Test
    void aDirectoryAnotherProcessClaimsIsKeptThoughItsDriverLooksDeadAndGoesOnceThatProcessDies() throws Exception {
        Path dir = parent.resolve(AeronDirSweep.PREFIX + "7-restarting");
        Process holder = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Holder.class.getName(),
                        dir.toString())
                .redirectErrorStream(true)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("claimed");
            // No CnC file and older than the driver timeout: a driver that died before writing it.
            looksAbandoned(dir);
            assertThat(AeronDirSweep.dead(dir)).isTrue();

            assertThat(AeronDirSweep.sweep(parent, parent.resolve("own"))).isEmpty();
            assertThat(dir).isDirectory();
        } finally {
            holder.destroyForcibly();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }

        looksAbandoned(dir);
        assertThat(AeronDirSweep.sweep(parent, parent.resolve("own")))
                .singleElement()
                .extracting(AeronDirSweep.Removed::dir)
                .isEqualTo(dir);
        assertThat(dir).doesNotExist();
    }

    @Test
    void aClaimInThisProcessKeepsItsDirectoryAndClosingItRemovesIt() {
        Path dir = parent.resolve(AeronDirSweep.PREFIX + "8-here");
        AeronDirClaim claim = AeronDirClaim.take(dir);
        looksAbandoned(dir);

        assertThat(AeronDirSweep.sweep(parent, parent.resolve("own"))).isEmpty();
        assertThat(dir.resolve(AeronDirClaim.FILE)).exists();

        claim.close();
        assertThat(dir).doesNotExist();
    }

    // The claim is held for the body's length: it has no other use for it.
    @SuppressWarnings("try")
    @Test
    void aClaimTakenAgainAfterASweepRemovedTheDirectoryMakesItAnew() {
        Path dir = parent.resolve(AeronDirSweep.PREFIX + "9-again");
        AeronDirClaim.take(dir).close();
        try (AeronDirClaim claim = AeronDirClaim.take(dir)) {
            assertThat(dir.resolve(AeronDirClaim.FILE)).exists();
        }
        assertThat(dir).doesNotExist();
    }

    private static void looksAbandoned(Path dir) {
        try {
            Files.setLastModifiedTime(dir, FileTime.from(Instant.now().minusSeconds(3600)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Another process claiming a directory, as a starting node does, until it is killed. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            AeronDirClaim claim = AeronDirClaim.take(Path.of(args[0]));
            System.out.println("claimed");
            System.out.flush();
            Thread.currentThread().join(); // held until this process is killed
            claim.close();
        }
    }
}
