package dev.tenure.server.security;

import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a node's TLS material is, as PEM files: its certificate (chain) and key, which serve the
 * gRPC and admin ports, and the CA whose signature clients' certificates must carry.
 *
 * @param certificate the node's certificate, followed by any intermediate CA certificates
 * @param key the certificate's private key, unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY})
 * @param clientCa the CA certificate(s) clients' certificates must chain to; null: clients are not
 *     asked for a certificate (TLS without client authentication, and no principal)
 */
public record TlsFiles(Path certificate, Path key, @Nullable Path clientCa) {
    public TlsFiles {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(key, "key");
    }

    /** Whether clients must present a certificate signed by {@link #clientCa()} (mTLS). */
    public boolean clientCertificates() {
        return clientCa != null;
    }
}
