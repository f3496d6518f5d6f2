package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What makes a file a cluster secret, and what is refused by name, in one line, before a node starts. */
class ClusterSecretFileTest {
    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    @Test
    void theFileHoldsTheSecretLessOneTrailingNewline() throws IOException {
        byte[] key = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        ClusterSecret plain = read(secretFile("plain", key));
        ClusterSecret withNewline = read(secretFile("newline", concat(key, "\n")));
        ClusterSecret withCrlf = read(secretFile("crlf", concat(key, "\r\n")));
        byte[] challenge = new byte[ClusterSecret.CHALLENGE_BYTES];
        assertThat(withNewline.answer(challenge)).isEqualTo(plain.answer(challenge));
        assertThat(withCrlf.answer(challenge)).isEqualTo(plain.answer(challenge));
        // Only one newline goes: a second one is part of the secret.
        ClusterSecret twoNewlines = read(secretFile("two", concat(key, "\n\n")));
        assertThat(twoNewlines.answer(challenge)).isNotEqualTo(plain.answer(challenge));
        assertThat(warnings).isEmpty();
    }

    @Test
    void randomBytesAreTheSecretAsTheyAre() throws IOException {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i * 37 + 200); // not text: no byte is special but a final newline
        }
        byte[] challenge = new byte[ClusterSecret.CHALLENGE_BYTES];
        assertThat(read(secretFile("random", key)).answer(challenge))
                .isEqualTo(new ClusterSecret(key).answer(challenge));
    }

    @Test
    void aMissingFileIsRefusedByName() {
        Path missing = tmp.resolve("nope");
        assertRefused(missing, "cluster secret file " + missing + " does not exist");
    }

    @Test
    void anEmptyFileIsRefusedByName() throws IOException {
        Path empty = secretFile("empty", new byte[0]);
        assertRefused(
                empty,
                "cluster secret file " + empty + " is empty: write at least 16 random bytes to it,"
                        + " e.g. head -c 32 /dev/urandom > " + empty);
        Path newlineOnly = secretFile("newline-only", "\n".getBytes(StandardCharsets.US_ASCII));
        assertRefused(
                newlineOnly,
                "cluster secret file " + newlineOnly + " is empty: write at least 16 random"
                        + " bytes to it, e.g. head -c 32 /dev/urandom > " + newlineOnly);
    }

    @Test
    void fewerThanSixteenBytesAreRefusedByName() throws IOException {
        Path shortFile = secretFile("short", "0123456789abcde\n".getBytes(StandardCharsets.US_ASCII));
        assertRefused(
                shortFile,
                "cluster secret file " + shortFile + " holds 15 bytes, fewer than the 16 a secret"
                        + " needs: e.g. head -c 32 /dev/urandom > " + shortFile);
        assertThat(read(secretFile("sixteen", "0123456789abcdef\n".getBytes(StandardCharsets.US_ASCII))))
                .hasToString("ClusterSecret[16 bytes]");
    }

    @Test
    void aDirectoryIsRefusedByName() {
        assertRefused(tmp, "cluster secret file " + tmp + " is a directory, not a file");
    }

    @Test
    void aFileTooLargeToBeASecretIsRefused() throws IOException {
        byte[] largest = new byte[ClusterSecretFile.BYTES_MAX];
        Arrays.fill(largest, (byte) 'k');
        assertThat(read(secretFile("largest", concat(largest, "\r\n")))).hasToString("ClusterSecret[4096 bytes]");
        Path large = secretFile("large", concat(largest, "k"));
        assertRefused(large, "cluster secret file " + large + " is larger than 4096 bytes: not a secret file");
        // A larger file whose first bytes happen to end in a newline is not cut there.
        Path cut = secretFile("cut", concat(largest, "\r\nmore"));
        assertRefused(cut, "cluster secret file " + cut + " is larger than 4096 bytes: not a secret file");
    }

    @Test
    void aFileOthersCanReadIsUsedWithAWarning() throws IOException {
        Path open = secretFile("open", "0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        read(open);
        assertThat(warnings)
                .containsExactly("warning: cluster secret file " + open
                        + " can be read by group or others (rw-r--r--); chmod 600 " + open);
        warnings.clear();
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r-----"));
        read(open);
        assertThat(warnings).hasSize(1);
        warnings.clear();
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("r--------"));
        read(open);
        assertThat(warnings).isEmpty();
    }

    @Test
    void theSecretNeverShowsInItsText() {
        assertThat(new ClusterSecret("a very secret key".getBytes(StandardCharsets.US_ASCII)).toString())
                .isEqualTo("ClusterSecret[17 bytes]")
                .doesNotContain("secret key");
    }

    private ClusterSecret read(Path file) {
        return ClusterSecretFile.read(file, warnings::add);
    }

    private void assertRefused(Path file, String message) {
        assertThatThrownBy(() -> read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    /** A file only its owner may read, as the docs say to make it. */
    private Path secretFile(String name, byte[] bytes) throws IOException {
        Path file = Files.write(tmp.resolve(name), bytes);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private static byte[] concat(byte[] head, String tail) {
        byte[] t = tail.getBytes(StandardCharsets.US_ASCII);
        byte[] all = Arrays.copyOf(head, head.length + t.length);
        System.arraycopy(t, 0, all, head.length, t.length);
        return all;
    }
}
