package dev.tenure.server.security;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM certificates and PKCS#8 private keys with the JDK alone. Every failure is an
 * {@link IllegalArgumentException} whose message is one line naming the file and what is wrong
 * with it, so a node given a bad file stops at start, before it touches its data, and says which.
 */
final class PemFiles {
    private static final Pattern PRIVATE_KEY =
            Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    /** Key algorithms tried, in turn, on a PKCS#8 key (it names its algorithm only as an OID). */
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");

    private PemFiles() {}

    /** The certificates in {@code file}, in order (a node's own first, then its intermediates). */
    static List<X509Certificate> certificates(String what, Path file) {
        byte[] bytes = read(what, file);
        // The JDK decodes any PEM block as a certificate, a key too, and then fails obscurely.
        if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw bad(what, file, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        List<X509Certificate> out = new ArrayList<>();
        try {
            for (Certificate c :
                    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))) {
                out.add((X509Certificate) c);
            }
        } catch (CertificateException e) {
            throw bad(what, file, "not a PEM certificate (" + e.getMessage() + ")");
        }
        if (out.isEmpty()) {
            throw bad(what, file, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        return out;
    }

    /** The private key in {@code file}, which must be unencrypted PKCS#8. */
    static PrivateKey privateKey(String what, Path file) {
        String text = new String(read(what, file), StandardCharsets.US_ASCII);
        Matcher m = PRIVATE_KEY.matcher(text);
        if (!m.find()) {
            throw bad(what, file, notPkcs8(text, file));
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(1));
        } catch (IllegalArgumentException e) {
            throw bad(what, file, "the key is not valid base64 (" + e.getMessage() + ")");
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw bad(what, file, "not a PKCS#8 RSA, EC or EdDSA private key");
    }

    private static String notPkcs8(String text, Path file) {
        if (text.contains("BEGIN ENCRYPTED PRIVATE KEY")) {
            return "the key is encrypted; Tenure reads unencrypted keys: `openssl pkcs8 -in " + file
                    + " -out KEY.pem` writes one (keep it readable by the node only)";
        }
        if (text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")) {
            return "a PKCS#1/SEC1 key; Tenure reads PKCS#8 (BEGIN PRIVATE KEY): `openssl pkcs8 -topk8 -nocrypt -in "
                    + file + " -out KEY.pem` converts it";
        }
        return "holds no PEM private key (-----BEGIN PRIVATE KEY-----)";
    }

    private static byte[] read(String what, Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw bad(what, file, "no such file");
        } catch (AccessDeniedException e) {
            throw bad(what, file, "not readable (permission denied)");
        } catch (IOException e) {
            throw bad(what, file, "cannot read it (" + e + ")");
        }
    }

    private static IllegalArgumentException bad(String what, Path file, String problem) {
        return new IllegalArgumentException(what + " " + file + ": " + problem);
    }
}
