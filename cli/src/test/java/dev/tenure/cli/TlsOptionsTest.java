package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Where the TLS settings come from, and which server TLS options cannot go together. */
class TlsOptionsTest {
    @TempDir
    Path tmp;

    @Test
    void eachOptionWinsOverItsOwnVariableOnly() {
        TlsOptions tls = new TlsOptions();
        new CommandLine(tls).parseArgs("--tls-ca", "/flags/ca.pem");
        tls.env = Map.of(
                "TENURE_TLS_CA", "/env/ca.pem",
                "TENURE_TLS_CERT", "/env/alice.pem",
                "TENURE_TLS_KEY", "/env/alice.key")::get;
        assertThat(tls.files())
                .containsExactly(
                        Map.entry("TENURE_TLS_CA", Path.of("/flags/ca.pem")),
                        Map.entry("TENURE_TLS_CERT", Path.of("/env/alice.pem")),
                        Map.entry("TENURE_TLS_KEY", Path.of("/env/alice.key")));
    }

    @Test
    void neitherOptionsNorVariablesIsPlaintext() {
        TlsOptions tls = new TlsOptions();
        tls.env = name -> name.equals("TENURE_TLS_CA") ? " " : null;
        assertThat(tls.files()).isEmpty();
        assertThat(tls.settings()).isNull();
    }

    @Test
    void aServerWithACaButNoCertificateOrACertificateWithoutKeyIsBadInput() {
        assertBadInput(
                "tenure: --tls-ca needs --tls-cert and --tls-key: client certificates are asked for over TLS only",
                "--tls-ca",
                "ca.pem");
        assertBadInput("tenure: --tls-cert and --tls-key go together: give both or neither", "--tls-cert", "node.pem");
    }

    private void assertBadInput(String message, String... tlsArgs) {
        String[] args = new String[tlsArgs.length + 5];
        args[0] = "server";
        args[1] = "--port";
        args[2] = "7690";
        args[3] = "--data";
        args[4] = tmp.resolve("data").toString();
        System.arraycopy(tlsArgs, 0, args, 5, tlsArgs.length);
        StringWriter err = new StringWriter();
        assertThat(Main.run(new PrintWriter(err, true), args)).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo(message);
        assertThat(tmp.resolve("data")).as("nothing started").doesNotExist();
    }
}
