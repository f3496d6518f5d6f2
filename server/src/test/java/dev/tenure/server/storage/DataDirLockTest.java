package dev.tenure.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A data directory that cannot be one is refused with a message that says what and where. */
class DataDirLockTest {
    @TempDir
    Path tmp;

    @Test
    void aRegularFileIsRefusedByName() throws IOException {
        Path file = Files.writeString(tmp.resolve("data"), "not a directory");
        assertThatThrownBy(() -> DataDirLock.acquire(file))
                .isInstanceOf(IOException.class)
                .hasMessage("data directory " + file.toAbsolutePath() + " is a file, not a directory");
        assertThat(Files.readString(file)).as("left as it was").isEqualTo("not a directory");
    }

    @Test
    void aDirectoryUnderAFileCannotBeCreatedAndSaysSo() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        Path under = file.resolve("data");
        assertThatThrownBy(() -> DataDirLock.acquire(under))
                .isInstanceOf(IOException.class)
                .hasMessage("data directory " + under.toAbsolutePath() + " cannot be created: Not a directory");
    }

    /** A mark file the node must remove first that cannot be: named, with the system's reason, no Java class. */
    @Test
    void aMarkFileThatCannotBeRemovedIsNamed() throws IOException {
        Path data = Files.createDirectories(tmp.resolve("data"));
        // A directory, not empty, where the archive's mark file goes: it cannot be removed.
        Path mark = Files.createDirectories(data.resolve("archive/archive-mark.dat"));
        Files.writeString(mark.resolve("x"), "x");
        assertThatThrownBy(() -> DataDirLock.acquire(data))
                .isInstanceOf(IOException.class)
                .hasMessage("data directory " + data.toAbsolutePath() + ": " + mark
                        + " cannot be removed: a directory that is not empty");
        try (DataDirLock again = DataDirLock.acquire(Files.createDirectories(tmp.resolve("other")))) {
            assertThat(again).as("the failed attempt left no lock behind it").isNotNull();
        }
    }

    @Test
    void aFileWhereTheArchivesDirectoryGoesIsNamed() throws IOException {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve("archive"), "a file where the archive's directory goes");
        assertThatThrownBy(() -> DataDirLock.ownerOnlyAeronDirectories(data))
                .isInstanceOf(IOException.class)
                .hasMessage("data directory " + data.toAbsolutePath() + " cannot be created: "
                        + data.toAbsolutePath().resolve("archive") + ": a file of that name exists");
    }
}
