package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's TLS files are read at start; a bad one fails with one line that names it. */
class ServerTlsTest {
    @TempDir
    static Path dir;

    static Authority ca;
    static Credential node;
    static Credential other;

    @BeforeAll
    static void certificates() {
        TestCertificates pki = new TestCertificates(dir);
        ca = pki.authority("tenure-test-ca");
        node = ca.server("node-0", "127.0.0.1");
        other = ca.server("node-1", "127.0.0.1");
    }

    @Test
    void goodFilesLoadWithOrWithoutAClientCa() {
        assertThat(ServerTls.load(new TlsFiles(node.certificate(), node.key(), ca.certificate()))
                        .clientCertificates())
                .isTrue();
        ServerTls serverOnly = ServerTls.load(new TlsFiles(node.certificate(), node.key(), null));
        assertThat(serverOnly.clientCertificates()).isFalse();
        assertThat(serverOnly.certificate()).isEqualTo(node.x509());
    }

    @Test
    void aMissingFileIsNamed() {
        Path missing = dir.resolve("missing.pem");
        assertRefused(new TlsFiles(missing, node.key(), null), "TLS certificate file " + missing + ": no such file");
        assertRefused(new TlsFiles(node.certificate(), missing, null), "TLS key file " + missing + ": no such file");
        assertRefused(
                new TlsFiles(node.certificate(), node.key(), missing), "TLS CA file " + missing + ": no such file");
    }

    @Test
    void aFileOfTheWrongKindIsNamed() {
        assertRefused(
                new TlsFiles(node.key(), node.key(), null),
                "TLS certificate file " + node.key() + ": holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        assertRefused(
                new TlsFiles(node.certificate(), node.certificate(), null),
                "TLS key file " + node.certificate() + ": holds no PEM private key (-----BEGIN PRIVATE KEY-----)");
    }

    @Test
    void aPkcs1KeySaysHowToConvertIt() throws Exception {
        Path pkcs1 = Files.writeString(
                dir.resolve("rsa.key"), "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> ServerTls.load(new TlsFiles(node.certificate(), pkcs1, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("TLS key file " + pkcs1 + ": a PKCS#1/SEC1 key")
                .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt -in " + pkcs1);
    }

    @Test
    void theKeyOfAnotherCertificateIsRefused() {
        assertRefused(
                new TlsFiles(node.certificate(), other.key(), null),
                "TLS key file " + other.key() + ": not the key of the certificate in " + node.certificate()
                        + " (CN=node-0)");
    }

    private static void assertRefused(TlsFiles files, String message) {
        assertThatThrownBy(() -> ServerTls.load(files))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
