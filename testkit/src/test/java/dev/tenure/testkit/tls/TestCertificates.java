package dev.tenure.testkit.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificate authorities and the certificates they issue, made in the test and written as PEM
 * files (certificates as X.509, keys as unencrypted PKCS#8, which is what {@code openssl genpkey}
 * and {@code openssl req -newkey} write), so that the code under test reads them exactly as it
 * reads an operator's files. EC P-256 keys: generated in milliseconds.
 *
 * <pre>{@code
 * TestCertificates pki = new TestCertificates(dir);
 * TestCertificates.Authority ca = pki.authority("tenure-ca");
 * TestCertificates.Credential server = ca.server("node", "127.0.0.1");
 * TestCertificates.Credential client = ca.client("alice");
 * }</pre>
 */
public final class TestCertificates {
    private static final Duration VALID = Duration.ofDays(1);
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** A PEM certificate and its PKCS#8 key, as files. */
    public record Credential(Path certificate, Path key, X509Certificate x509) {}

    /** A self-signed CA named {@code CN=name}; its certificate is written to {@code name.pem}. */
    public Authority authority(String name) {
        KeyPair keys = newKeys();
        X500Name subject = new X500Name("CN=" + name);
        Instant now = Instant.now();
        X509Certificate cert = sign(subject, subject, keys, keys.getPrivate(), now.minus(VALID), now.plus(VALID), true);
        return new Authority(name, cert, keys.getPrivate(), write(name + ".pem", pem("CERTIFICATE", encoded(cert))));
    }

    /** A CA: issues certificates signed with its key. */
    public final class Authority {
        private final X500Name name;
        private final X509Certificate certificate;
        private final PrivateKey key;
        private final Path file;

        private Authority(String name, X509Certificate certificate, PrivateKey key, Path file) {
            this.name = new X500Name("CN=" + name);
            this.certificate = certificate;
            this.key = key;
            this.file = file;
        }

        /** The CA's certificate as a PEM file: what {@code --tls-ca} takes. */
        public Path certificate() {
            return file;
        }

        public X509Certificate x509() {
            return certificate;
        }

        /** A certificate for a node at {@code hosts} (IP addresses or DNS names, as subject alternative names). */
        public Credential server(String cn, String... hosts) {
            Instant now = Instant.now();
            return issue(cn, now.minus(VALID), now.plus(VALID), hosts);
        }

        /** A client certificate with subject {@code CN=cn}, valid now. */
        public Credential client(String cn) {
            return server(cn);
        }

        /** A certificate whose validity ended an hour ago. */
        public Credential expired(String cn, String... hosts) {
            Instant now = Instant.now();
            return issue(cn, now.minus(VALID), now.minus(Duration.ofHours(1)), hosts);
        }

        /** A certificate with exactly this subject (e.g. one without a CN), valid now. */
        public Credential withSubject(String fileName, String subject) {
            Instant now = Instant.now();
            return issue(fileName, new X500Name(subject), now.minus(VALID), now.plus(VALID));
        }

        private Credential issue(String cn, Instant notBefore, Instant notAfter, String... hosts) {
            return issue(cn, new X500Name("CN=" + cn), notBefore, notAfter, hosts);
        }

        private Credential issue(
                String fileName, X500Name subject, Instant notBefore, Instant notAfter, String... hosts) {
            KeyPair keys = newKeys();
            X509Certificate cert = sign(name, subject, keys, key, notBefore, notAfter, false, hosts);
            Path certFile = write(fileName + ".pem", pem("CERTIFICATE", encoded(cert)));
            Path keyFile = write(
                    fileName + ".key", pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
            return new Credential(certFile, keyFile, cert);
        }
    }

    private static X509Certificate sign(
            X500Name issuer,
            X500Name subject,
            KeyPair subjectKeys,
            PrivateKey issuerKey,
            Instant notBefore,
            Instant notAfter,
            boolean ca,
            String... hosts) {
        try {
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                    issuer,
                    BigInteger.valueOf(SERIAL.incrementAndGet()),
                    Date.from(notBefore),
                    Date.from(notAfter),
                    subject,
                    subjectKeys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
            if (ca) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            }
            if (hosts.length > 0) {
                List<GeneralName> names = new ArrayList<>();
                for (String host : hosts) {
                    boolean ip = Character.isDigit(host.charAt(0)) || host.contains(":");
                    names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, host));
                }
                b.addExtension(
                        Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            return new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
        } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a test certificate for " + subject, e);
        }
    }

    private static KeyPair newKeys() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] encoded(X509Certificate cert) {
        try {
            return cert.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    private Path write(String name, String content) {
        try {
            Files.createDirectories(dir);
            return Files.writeString(dir.resolve(name), content, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
