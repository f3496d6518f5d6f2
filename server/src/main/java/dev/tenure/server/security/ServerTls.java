package dev.tenure.server.security;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * A node's TLS, read once at start from its {@link TlsFiles}: the same certificate, key and client
 * CA serve the gRPC port (Netty) and the admin port (the JDK's HTTPS server), so the two ports
 * never disagree about who may connect.
 */
public final class ServerTls {
    private static final char[] IN_MEMORY = new char[0];

    /**
     * TLS 1.2 and 1.3 only, on both ports, whatever the JVM's {@code java.security} allows: 1.0 and
     * 1.1 have no AEAD suites and known downgrade attacks.
     */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /**
     * The suites both ports accept, in order of preference: forward secret (ECDHE, or TLS 1.3's
     * own) and AEAD only, which is the list HTTP/2 allows (RFC 7540, 9.2.2) and so what gRPC
     * clients offer. docs/security.md names them.
     */
    public static final List<String> CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    private final List<X509Certificate> chain;
    private final PrivateKey key;
    private final List<X509Certificate> clientCas;

    private ServerTls(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> clientCas) {
        this.chain = chain;
        this.key = key;
        this.clientCas = clientCas;
    }

    /**
     * Reads and checks the files. A file that is missing, unreadable or not what it should be, or
     * a key that does not belong to the certificate, fails with an {@link IllegalArgumentException}
     * whose one-line message names the file.
     */
    public static ServerTls load(TlsFiles files) {
        List<X509Certificate> chain = PemFiles.certificates("TLS certificate file", files.certificate());
        PrivateKey key = PemFiles.privateKey("TLS key file", files.key());
        requireMatch(chain.get(0), key, files);
        List<X509Certificate> cas =
                files.clientCa() == null ? List.of() : PemFiles.certificates("TLS CA file", files.clientCa());
        return new ServerTls(chain, key, cas);
    }

    /** Whether clients must present a certificate signed by the client CA (mTLS). */
    public boolean clientCertificates() {
        return !clientCas.isEmpty();
    }

    /** The node's certificate (the first of its chain). */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    /** For the gRPC port: TLS only, and a client certificate signed by the client CA if there is one. */
    public SslContext grpc() {
        SslContextBuilder b = GrpcSslContexts.configure(
                        SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new)))
                .protocols(PROTOCOLS)
                .ciphers(CIPHER_SUITES, SupportedCipherSuiteFilter.INSTANCE);
        if (clientCertificates()) {
            b.trustManager(clientCas.toArray(X509Certificate[]::new)).clientAuth(ClientAuth.REQUIRE);
        }
        return build(b);
    }

    /** Binds each call's principal (the client certificate's CN) for the handlers; see {@link PrincipalInterceptor}. */
    public PrincipalInterceptor principals() {
        return new PrincipalInterceptor(clientCertificates());
    }

    /**
     * For the node's calls to itself (the warm-up at start): trusts only the node's own
     * certificate, and presents it, so on a node whose client CA also signed its certificate the
     * whole call path is exercised.
     */
    public SslContext selfClient() {
        return build(GrpcSslContexts.forClient()
                .trustManager(chain.get(0))
                .keyManager(key, chain.toArray(X509Certificate[]::new)));
    }

    /** For the admin port: HTTPS with the same certificate, and the same client certificates asked for. */
    public HttpsConfigurator admin() {
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("node", key, IN_MEMORY, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, IN_MEMORY);
            TrustManagerFactory tmf = null;
            if (clientCertificates()) {
                KeyStore trusted = KeyStore.getInstance("PKCS12");
                trusted.load(null, null);
                for (int i = 0; i < clientCas.size(); i++) {
                    trusted.setCertificateEntry("client-ca-" + i, clientCas.get(i));
                }
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trusted);
            }
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            // Asked for, not required: /health stays open to a load balancer without a
            // certificate, and /status and /metrics check the principal themselves (AdminHttp).
            boolean wantClientAuth = clientCertificates();
            return new HttpsConfigurator(ssl) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters p = getSSLContext().getDefaultSSLParameters();
                    p.setProtocols(PROTOCOLS.toArray(String[]::new));
                    p.setCipherSuites(supported(p, CIPHER_SUITES));
                    p.setUseCipherSuitesOrder(true);
                    p.setWantClientAuth(wantClientAuth);
                    params.setSSLParameters(p);
                }
            };
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up HTTPS for the admin port: " + e.getMessage(), e);
        }
    }

    /** {@code wanted} less what this JVM does not implement (the JDK refuses an unknown name). */
    private static String[] supported(SSLParameters defaults, List<String> wanted) {
        List<String> known = List.of(defaults.getCipherSuites());
        return wanted.stream().filter(known::contains).toArray(String[]::new);
    }

    private static SslContext build(SslContextBuilder b) {
        try {
            return b.build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * A key from another certificate would only fail at the first handshake, on every client,
     * with a message about signatures: say so at start instead.
     */
    private static void requireMatch(X509Certificate cert, PrivateKey key, TlsFiles files) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        byte[] probe = "tenure".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false; // e.g. an EC key for an RSA certificate
        }
        if (!matches) {
            throw new IllegalArgumentException(
                    "TLS key file " + files.key() + ": not the key of the certificate in " + files.certificate() + " ("
                            + cert.getSubjectX500Principal().getName() + ")");
        }
    }
}
