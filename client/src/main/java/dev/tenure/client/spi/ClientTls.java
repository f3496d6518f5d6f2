package dev.tenure.client.spi;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * TLS to the nodes, from PEM files: the CA that signed the nodes' certificates, and this client's
 * own certificate and key for nodes that ask for one (mTLS; the certificate's CN is then the
 * principal the node knows this client as). Keys are unencrypted PKCS#8 ({@code BEGIN PRIVATE
 * KEY}, what {@code openssl genpkey} and {@code openssl req -newkey} write).
 *
 * <p>The files are read once, here: a missing or unreadable file fails at once with an
 * {@link IllegalArgumentException} naming it, not at the first connection. Internal: an
 * application gives the files to {@code TenureClient.Builder#tls(Path, Path, Path)}; Tenure's own
 * CLI, lab and bench read them once here and hand the result to {@link Transport#tls} and {@link
 * Transport#configure}.
 */
public final class ClientTls {
    private final SslContext context;
    private final boolean presentsCertificate;

    private ClientTls(SslContext context, boolean presentsCertificate) {
        this.context = context;
        this.presentsCertificate = presentsCertificate;
    }

    /**
     * Reads the PEM files once, now.
     *
     * @param caPem the CA certificate(s) the nodes' certificates must chain to; null trusts the
     *     JVM's default CAs
     * @param certificatePem this client's certificate (chain), or null to present none
     * @param keyPem the key of {@code certificatePem}; null exactly when it is
     */
    public static ClientTls of(@Nullable Path caPem, @Nullable Path certificatePem, @Nullable Path keyPem) {
        if ((certificatePem == null) != (keyPem == null)) {
            throw new IllegalArgumentException(
                    "a TLS client certificate and its key go together: give both or neither");
        }
        SslContextBuilder b = GrpcSslContexts.forClient();
        if (caPem != null) {
            b.trustManager(readable("TLS CA file", caPem).toFile());
        }
        if (certificatePem != null && keyPem != null) {
            b.keyManager(
                    readable("TLS certificate file", certificatePem).toFile(),
                    readable("TLS key file", keyPem).toFile());
        }
        try {
            return new ClientTls(b.build(), certificatePem != null);
        } catch (javax.net.ssl.SSLException | RuntimeException e) {
            // Netty's message names the file it could not use ("File does not contain valid ...").
            throw new IllegalArgumentException("cannot set up TLS: " + oneLine(e), e);
        }
    }

    /** TLS trusting {@code caPem}, presenting no certificate of this client's own. */
    public static ClientTls trusting(Path caPem) {
        return of(caPem, null, null);
    }

    SslContext context() {
        return context;
    }

    boolean presentsCertificate() {
        return presentsCertificate;
    }

    private static Path readable(String what, Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(what + " " + file + ": no such file");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(what + " " + file + ": not readable");
        }
        return file;
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        Throwable cause = e.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message += " (" + cause.getMessage() + ")";
        }
        return message.replace('\n', ' ');
    }
}
