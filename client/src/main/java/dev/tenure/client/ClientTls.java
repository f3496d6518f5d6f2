package dev.tenure.client;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TLS to the nodes, from PEM files: the CA that signed the nodes' certificates, and this client's
 * own certificate and key for nodes that ask for one (mTLS; the certificate's CN is then the
 * principal the node knows this client as). Keys are unencrypted PKCS#8 ({@code BEGIN PRIVATE
 * KEY}, what {@code openssl genpkey} and {@code openssl req -newkey} write).
 *
 * <p>The files are read once, here: a missing or unreadable file fails at once with an
 * {@link IllegalArgumentException} naming it, not at the first connection. Give it to
 * {@link TenureClient.Builder#tls(ClientTls)}.
 */
public final class ClientTls {
    private final SslContext context;
    private final boolean presentsCertificate;

    private ClientTls(SslContext context, boolean presentsCertificate) {
        this.context = context;
        this.presentsCertificate = presentsCertificate;
    }

    /**
     * @param caPem the CA certificate(s) the nodes' certificates must chain to; null trusts the
     *     JVM's default CAs
     * @param certificatePem this client's certificate (chain), or null to present none
     * @param keyPem the key of {@code certificatePem}; null exactly when it is
     */
    public static ClientTls of(Path caPem, Path certificatePem, Path keyPem) {
        if ((certificatePem == null) != (keyPem == null)) {
            throw new IllegalArgumentException(
                    "a TLS client certificate and its key go together: give both or neither");
        }
        SslContextBuilder b = GrpcSslContexts.forClient();
        if (caPem != null) {
            b.trustManager(readable("TLS CA file", caPem).toFile());
        }
        if (certificatePem != null) {
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

    /**
     * Makes {@code builder}'s channel speak TLS with these settings, checking that the node's
     * certificate names the host it was given as. A handshake that fails for a reason a retry
     * cannot cure (the node's certificate is untrusted, expired or for another host, the node
     * refused this client's certificate or asked for one) fails the call with UNAUTHENTICATED
     * and that reason in one line; the client then throws {@link DeniedException}.
     */
    NettyChannelBuilder configure(NettyChannelBuilder builder) {
        return builder.sslContext(context)
                .useTransportSecurity()
                .intercept(HandshakeFailures.overTls(presentsCertificate));
    }

    /**
     * Makes {@code builder}'s channel plaintext. A node that serves TLS only says so to a plaintext
     * client, and its calls then fail UNAUTHENTICATED with that in one line (the client throws
     * {@link DeniedException}) instead of being retried until the request timeout.
     */
    static NettyChannelBuilder configurePlaintext(NettyChannelBuilder builder) {
        return builder.usePlaintext().intercept(HandshakeFailures.plaintext());
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
