package dev.tenure.server;

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
                .hasMessageStartingWith("data directory " + under.toAbsolutePath() + " cannot be created: ");
    }
}
