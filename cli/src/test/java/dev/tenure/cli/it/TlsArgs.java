package dev.tenure.cli.it;

import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.util.ArrayList;
import java.util.List;

/** The command-line options of a node and of its clients with TLS and client certificates. */
final class TlsArgs {
    private TlsArgs() {}

    /** `tenure server`'s options: {@code node}'s certificate, clients' certificates from {@code ca}. */
    static String[] server(Credential node, Authority ca) {
        return new String[] {
            "--tls-cert",
            node.certificate().toString(),
            "--tls-key",
            node.key().toString(),
            "--tls-ca",
            ca.certificate().toString()
        };
    }

    /** {@code args}, then the options of a client of {@code endpoint} presenting {@code who}. */
    static List<String> client(String endpoint, Authority ca, Credential who, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(
                "--endpoint",
                endpoint,
                "--tls-ca",
                ca.certificate().toString(),
                "--tls-cert",
                who.certificate().toString(),
                "--tls-key",
                who.key().toString()));
        return all;
    }
}
