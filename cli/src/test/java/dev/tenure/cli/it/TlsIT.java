package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real `tenure server --tls-cert --tls-key --tls-ca` process and real client commands: with the
 * CA and a certificate (as options or as TENURE_TLS_* variables) they work as without TLS; a
 * client the node refuses exits 6 and says why in one line.
 */
class TlsIT extends OnOneNode {
    private static final Duration EXIT = Duration.ofSeconds(60);

    static Authority ca;
    static Credential alice;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates pki = new TestCertificates(data.resolve("pki"));
        ca = pki.authority("tenure-test-ca");
        // The node's certificate names 127.0.0.1 only: "localhost" is another host to a client.
        Credential node = ca.server("node-0", "127.0.0.1");
        alice = ca.client("alice");
        serve(new ServerProcess(data.resolve("node")).withOptions(TlsArgs.server(node, ca)));
    }

    @Test
    void withTheCaAndACertificateAcquireKvAndStatusWork() throws Exception {
        try (var holder = tenure(withTls(alice, "acquire", "tls-orders", "--json"), Map.of())) {
            long token = TenureCli.json(holder.nextLine(EXIT)).get("token").getAsLong();
            try (var put = tenure(
                    withTls(
                            alice,
                            "kv",
                            "put",
                            "tls-orders/cursor",
                            "42",
                            "--lock",
                            "tls-orders",
                            "--token",
                            "" + token),
                    Map.of())) {
                assertThat(put.waitFor(EXIT)).as(put.output()).isZero();
            }
            try (var status = tenure(withTls(alice, "status", "tls-orders", "--json"), Map.of())) {
                assertThat(status.waitFor(EXIT)).as(status.output()).isZero();
                assertThat(TenureCli.json(status.nextLine(Duration.ofSeconds(1)))
                                .getAsJsonObject("holder")
                                .get("token")
                                .getAsLong())
                        .isEqualTo(token);
            }
            holder.signal("TERM");
            assertThat(holder.waitFor(EXIT)).as(holder.output()).isZero();
        }
    }

    @Test
    void aCommandUnderRunConnectsWithTheSettingsRunWasGiven() throws Exception {
        // The inner command has no TLS options: only the TENURE_TLS_* variables `tenure run` sets.
        String inner = Processes.tenureShellLine(List.of("kv", "put", "tls-run/k", "v", "--lock", "tls-run", "--token"))
                + " \"$TENURE_TOKEN\"";
        List<String> args = new ArrayList<>(withTls(alice, "run", "tls-run"));
        args.addAll(List.of("--", "sh", "-c", inner));
        try (var run = tenure(args, Map.of())) {
            assertThat(run.waitFor(EXIT)).as(run.output()).isZero();
        }
        try (var get = tenure(withTls(alice, "kv", "get", "tls-run/k"), Map.of())) {
            assertThat(get.waitFor(EXIT)).as(get.output()).isZero();
            assertThat(get.output()).contains("out: v");
        }
    }

    @Test
    void theEnvironmentVariablesServeAsTheOptionsAndAnOptionWins() throws Exception {
        Map<String, String> env = Map.of(
                "TENURE_TLS_CA", ca.certificate().toString(),
                "TENURE_TLS_CERT", alice.certificate().toString(),
                "TENURE_TLS_KEY", alice.key().toString());
        try (var put = tenure(List.of("kv", "put", "tls-env/key", "v", "--endpoint", server.endpoint()), env)) {
            assertThat(put.waitFor(EXIT)).as(put.output()).isZero();
        }
        try (var get = tenure(List.of("kv", "get", "tls-env/key", "--endpoint", server.endpoint()), env)) {
            assertThat(get.waitFor(EXIT)).as(get.output()).isZero();
            assertThat(get.output()).contains("out: v");
        }
        Map<String, String> wrongCa = Map.of(
                "TENURE_TLS_CA", data.resolve("no-such-ca.pem").toString(),
                "TENURE_TLS_CERT", alice.certificate().toString(),
                "TENURE_TLS_KEY", alice.key().toString());
        List<String> status = List.of(
                "status",
                "--endpoint",
                server.endpoint(),
                "--tls-ca",
                ca.certificate().toString());
        try (var withOption = tenure(status, wrongCa)) {
            assertThat(withOption.waitFor(EXIT)).as(withOption.output()).isZero();
        }
        try (var withoutOption = tenure(status.subList(0, 3), wrongCa)) {
            assertThat(withoutOption.waitFor(EXIT)).isEqualTo(2);
            assertThat(withoutOption.output())
                    .contains("err: tenure: TLS CA file " + data.resolve("no-such-ca.pem") + ": no such file");
        }
    }

    @Test
    void aClientWithoutACertificateExitsSixSayingSo() throws Exception {
        assertDenied(
                List.of(
                        "status",
                        "--endpoint",
                        server.endpoint(),
                        "--tls-ca",
                        ca.certificate().toString()),
                "failed: no client certificate: the node asks for one");
    }

    /**
     * A client without TLS is answered in plaintext HTTP/2 before the node closes the connection:
     * our client exits 6 at once saying what to do, and any other gRPC client gets the same
     * answer as a status, instead of retrying until its deadline on a connection closed without
     * a word.
     */
    @Test
    void aPlaintextClientIsToldTheNodeServesTlsOnly() throws Exception {
        try (var refused = tenure(List.of("status", "--endpoint", server.endpoint()), Map.of())) {
            assertThat(refused.waitFor(EXIT)).as(refused.output()).isEqualTo(6);
            assertThat(refused.all.stream().filter(l -> l.startsWith("err: tenure:")))
                    .as(refused.output())
                    .containsExactly("err: tenure: denied: the node at " + server.endpoint()
                            + " serves TLS only on this port: connect with TLS (--tls-ca, and --tls-cert with"
                            + " --tls-key if it asks for a client certificate)");
        }
        ManagedChannel plaintext =
                NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> TenureGrpc.newBlockingStub(plaintext)
                            .withDeadlineAfter(30, TimeUnit.SECONDS)
                            .serverStatus(ServerStatusRequest.getDefaultInstance()))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                        assertThat(e.getStatus().getDescription())
                                .isEqualTo("tenure: this port speaks TLS only: connect with TLS"
                                        + " (trust the node's CA: --tls-ca)");
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("answered, not retried until the deadline")
                    .isLessThan(Duration.ofSeconds(20));
        } finally {
            plaintext.shutdownNow();
        }
    }

    @Test
    void aClientWithACertificateOfAnotherCaExitsSix() throws Exception {
        Credential mallory = new TestCertificates(data.resolve("rogue"))
                .authority("rogue-ca")
                .client("mallory");
        assertDenied(withTls(mallory, "acquire", "tls-orders"), "failed: untrusted certificate");
    }

    @Test
    void anExpiredClientCertificateExitsSix() throws Exception {
        Credential old = ca.expired("old-alice");
        assertDenied(withTls(old, "kv", "get", "tls-orders/cursor"), "failed: expired");
    }

    @Test
    void aNodeReachedByANameItsCertificateDoesNotCarryIsRefusedAsWrongHost() throws Exception {
        List<String> args = new ArrayList<>(withTls(alice, "status"));
        args.set(args.indexOf(server.endpoint()), "localhost:" + server.port);
        assertDenied(args, "TLS handshake with localhost:" + server.port + " failed: wrong host");
    }

    @Test
    void aServerGivenAMissingCertificateFileExitsTwoNamingIt() throws Exception {
        Path missing = data.resolve("missing-node.pem");
        try (var node = tenure(
                List.of(
                        "server",
                        "--data",
                        data.resolve("never-made").toString(),
                        "--tls-cert",
                        missing.toString(),
                        "--tls-key",
                        alice.key().toString()),
                Map.of())) {
            assertThat(node.waitFor(EXIT)).as(node.output()).isEqualTo(2);
            assertThat(node.output()).isEqualTo("err: tenure: TLS certificate file " + missing + ": no such file");
            assertThat(data.resolve("never-made"))
                    .as("bad input changes nothing")
                    .doesNotExist();
        }
    }

    private static void assertDenied(List<String> args, String reason) throws Exception {
        try (var refused = tenure(args, Map.of())) {
            assertThat(refused.waitFor(EXIT)).as(refused.output()).isEqualTo(6);
            List<String> errors = refused.all.stream()
                    .filter(l -> l.startsWith("err: tenure:"))
                    .toList();
            assertThat(errors).as(refused.output()).hasSize(1);
            assertThat(errors.get(0))
                    .startsWith("err: tenure: denied: TLS handshake with ")
                    .contains(reason);
        }
    }

    /** ARGS against the server, with the CA and {@code credential} as options. */
    private static List<String> withTls(Credential credential, String... args) {
        return TlsArgs.client(server.endpoint(), ca, credential, args);
    }

    private static Processes.Running tenure(List<String> args, Map<String, String> env) throws Exception {
        return cli.withEnv(env).run(args);
    }
}
