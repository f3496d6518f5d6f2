package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenure server} with a data directory that cannot be one: one line, exit 1, nothing started. */
class ServerStartErrorsTest {
    @TempDir
    Path tmp;

    @Test
    void aRegularFileAsTheDataDirectoryIsRefusedByName() throws IOException {
        Path file = Files.writeString(tmp.resolve("data"), "not a directory");
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(err, true), "server", "--port", "7690", "--data", file.toString());
        assertThat(code).isEqualTo(1);
        assertThat(err.toString().strip())
                .isEqualTo("tenure: data directory " + file.toAbsolutePath() + " is a file, not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }
}
