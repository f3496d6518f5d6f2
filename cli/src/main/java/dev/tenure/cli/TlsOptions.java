package dev.tenure.cli;

import dev.tenure.client.spi.ClientTls;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * TLS options of every command that connects to nodes as a client. Each may come from the
 * environment instead ({@code TENURE_TLS_CA}, {@code TENURE_TLS_CERT}, {@code TENURE_TLS_KEY});
 * an option given wins over its variable. None given: plaintext.
 */
final class TlsOptions {
    static final String CA_ENV = "TENURE_TLS_CA";
    static final String CERT_ENV = "TENURE_TLS_CERT";
    static final String KEY_ENV = "TENURE_TLS_KEY";

    @Option(
            names = "--tls-ca",
            paramLabel = "FILE",
            description = "Connect with TLS, trusting nodes whose certificate this CA (PEM) signed" + " (default: $"
                    + CA_ENV + "; with only --tls-cert, the JVM's default CAs).")
    @Nullable
    Path ca;

    @Option(
            names = "--tls-cert",
            paramLabel = "FILE",
            description = "This client's certificate (PEM), for nodes that ask for one; its CN is the"
                    + " principal (default: $" + CERT_ENV + ").")
    @Nullable
    Path cert;

    @Option(
            names = "--tls-key",
            paramLabel = "FILE",
            description = "The key of --tls-cert, unencrypted PKCS#8 PEM (default: $" + KEY_ENV + ").")
    @Nullable
    Path key;

    /** Reads the environment; replaced in tests. */
    Function<String, String> env = System::getenv;

    /** The TLS to use, or null for plaintext. A missing or unreadable file fails here, naming it (exit 2). */
    @Nullable
    ClientTls settings() {
        Map<String, Path> files = files();
        if (files.isEmpty()) {
            return null;
        }
        return ClientTls.of(files.get(CA_ENV), files.get(CERT_ENV), files.get(KEY_ENV));
    }

    /**
     * The files in effect, as absolute paths, by the variable that names each: what a command
     * run under {@code tenure run} needs in its environment to connect as this process does.
     */
    Map<String, Path> files() {
        Map<String, Path> files = new LinkedHashMap<>();
        put(files, CA_ENV, ca);
        put(files, CERT_ENV, cert);
        put(files, KEY_ENV, key);
        return files;
    }

    private void put(Map<String, Path> files, String variable, @Nullable Path option) {
        Path file = option;
        if (file == null) {
            String value = env.apply(variable);
            file = value == null || value.isBlank() ? null : Path.of(value);
        }
        if (file != null) {
            files.put(variable, file.toAbsolutePath().normalize());
        }
    }
}
