package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.server.tls.ServerTls;
import dev.tenure.server.tls.TlsFiles;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On a node with TLS the admin port serves HTTPS only, with the gRPC port's certificate and client CA. */
class AdminHttpsTest {
    private static final ServerStatusResponse OK =
            ServerStatusResponse.newBuilder().setHealth("ok").build();

    @TempDir
    static Path dir;

    static Authority ca;
    static Credential node;
    static Credential monitor;

    @BeforeAll
    static void certificates() {
        TestCertificates pki = new TestCertificates(dir);
        ca = pki.authority("tenure-test-ca");
        node = ca.server("node-0", "127.0.0.1");
        monitor = ca.client("prometheus");
    }

    @Test
    void healthIsServedOverHttpsToAClientTrustingTheCa() throws Exception {
        try (AdminHttp admin = start(null)) {
            HttpResponse<String> health = get(https(null), "https", admin);
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"health\":\"ok\"");
        }
    }

    @Test
    void withAClientCaHealthNeedsAClientCertificate() throws Exception {
        try (AdminHttp admin = start(ca.certificate())) {
            assertThat(get(https(monitor), "https", admin).statusCode()).isEqualTo(200);
            assertThatThrownBy(() -> get(https(null), "https", admin)).isInstanceOf(IOException.class);
        }
    }

    @Test
    void plainHttpIsNotServed() throws Exception {
        try (AdminHttp admin = start(null)) {
            assertThatThrownBy(() -> get(
                            HttpClient.newBuilder()
                                    .connectTimeout(Duration.ofSeconds(5))
                                    .build(),
                            "http",
                            admin))
                    .isInstanceOf(IOException.class);
        }
    }

    private static AdminHttp start(Path clientCa) throws IOException {
        ServerTls tls = ServerTls.load(new TlsFiles(node.certificate(), node.key(), clientCa));
        return AdminHttp.start("127.0.0.1", 0, tls.admin(), () -> OK, () -> "");
    }

    private static HttpResponse<String> get(HttpClient http, String scheme, AdminHttp admin)
            throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + admin.port() + "/health"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A JDK HTTP client trusting the CA, presenting {@code credential} if not null. */
    private static HttpClient https(Credential credential) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", ca.x509());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        KeyManagerFactory kmf = null;
        if (credential != null) {
            String pem = Files.readString(credential.key());
            byte[] der = Base64.getMimeDecoder()
                    .decode(pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", ""));
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry(
                    "client",
                    KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der)),
                    new char[0],
                    new java.security.cert.Certificate[] {credential.x509()});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }
}
