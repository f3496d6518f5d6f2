package dev.tenure.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirsTest {
    @TempDir
    Path tmp;

    @Test
    void deletingAStoppedNodesDataDirectoryDeletesTheAeronDirectoryItsLockFileNames() throws Exception {
        Path aeron = aeronDir("tenure-0-1a2b");
        Path data = node(tmp.resolve("cluster/node-0"), aeron);

        Dirs.deleteTree(tmp.resolve("cluster"));

        assertThat(data).doesNotExist();
        assertThat(aeron).doesNotExist();
    }

    @Test
    void aNodeThatHoldsItsLockKeepsItsAeronDirectory() throws Exception {
        Path aeron = aeronDir("tenure-0-3c4d");
        Path data = node(tmp.resolve("live"), aeron);
        try (FileChannel channel = FileChannel.open(data.resolve("tenure.lock"), StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            assertThat(held.isValid()).isTrue();
            assertThat(Dirs.deleteAeronDirs(data)).isEmpty();
        }
        assertThat(aeron.resolve("cnc.dat")).exists();
    }

    @Test
    void aPathThatIsNotANodesAeronDirectoryIsNeverDeleted() throws Exception {
        Path elsewhere = Files.createDirectories(tmp.resolve("precious"));
        Path data = node(tmp.resolve("odd"), elsewhere);

        assertThat(Dirs.deleteAeronDirs(data)).isEmpty();
        assertThat(elsewhere).isDirectory();
    }

    private Path aeronDir(String name) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("shm").resolve(name));
        Files.write(dir.resolve("cnc.dat"), new byte[128]);
        return dir;
    }

    private static Path node(Path data, Path aeronDir) throws Exception {
        Files.createDirectories(data);
        Files.writeString(data.resolve("tenure.lock"), "aeron-dir " + aeronDir + "\n");
        return data;
    }
}
