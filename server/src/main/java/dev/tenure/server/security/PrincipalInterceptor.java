package dev.tenure.server.security;

import dev.tenure.gateway.Principal;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/**
 * Binds each call's principal, the CN of the subject of the client certificate its connection
 * presented, in the call's context ({@link Principal#current()}). Only the CN: subject alternative
 * names are not read, so one certificate is one principal however many names it carries. Where
 * client certificates are required, a call whose certificate has no CN is refused
 * (UNAUTHENTICATED) before any handler sees it: a later permission check must never meet a call
 * that was let in without a principal.
 */
public final class PrincipalInterceptor implements ServerInterceptor {
    private final boolean required;

    /** @param required whether the port asks every client for a certificate (mTLS) */
    PrincipalInterceptor(boolean required) {
        this.required = required;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SSLSession ssl = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        Optional<String> principal = ssl == null ? Optional.empty() : commonName(ssl);
        if (principal.isEmpty()) {
            if (required) {
                call.close(
                        Status.UNAUTHENTICATED.withDescription(
                                "the client certificate has no CN in its subject: Tenure's principal is the CN"),
                        new Metadata());
                return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
        }
        return Contexts.interceptCall(Principal.bind(Context.current(), principal.get()), call, headers, next);
    }

    /** The CN of the peer's certificate, or empty if it presented none or its subject has no CN. */
    public static Optional<String> commonName(SSLSession ssl) {
        Certificate[] peer;
        try {
            peer = ssl.getPeerCertificates();
        } catch (SSLPeerUnverifiedException none) {
            return Optional.empty();
        }
        return peer.length > 0 && peer[0] instanceof X509Certificate x509
                ? commonName(x509.getSubjectX500Principal())
                : Optional.empty();
    }

    /** The subject's most specific CN (the first in RFC 2253's order), unescaped. */
    static Optional<String> commonName(X500Principal subject) {
        try {
            var rdns = new LdapName(subject.getName(X500Principal.RFC2253)).getRdns();
            // LdapName lists the least specific RDN first, the reverse of the string's order.
            for (int i = rdns.size() - 1; i >= 0; i--) {
                Rdn rdn = rdns.get(i);
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    String cn = rdn.getValue().toString();
                    return cn.isEmpty() ? Optional.empty() : Optional.of(cn);
                }
            }
            return Optional.empty();
        } catch (InvalidNameException e) {
            return Optional.empty();
        }
    }
}
