package dev.tenure.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Turns a TLS handshake that failed for a reason a retry cannot cure into UNAUTHENTICATED with
 * that reason in one line. gRPC reports every failed handshake as UNAVAILABLE, which the client
 * retries until its request timeout and then reports as "no endpoint answered": a certificate
 * that is refused now is refused on every try, and the person at the terminal needs to be told
 * which certificate and why. A failure this class does not recognise (a handshake that timed out
 * or was cut, a node restarting) stays UNAVAILABLE and is retried as before.
 *
 * <p>On a plaintext channel it does the same for a node that serves TLS only: such a node answers
 * a plaintext gRPC client with an HTTP/2 GOAWAY whose text says so, which gRPC hands on in a
 * status that a retry cannot cure either.
 */
final class HandshakeFailures implements ClientInterceptor {
    /** What a TLS-only node's GOAWAY says to a plaintext client (the server's PlaintextOnTlsPort). */
    static final String TLS_ONLY = "this port speaks TLS only";

    private final boolean tls;
    private final boolean presentsCertificate;

    private HandshakeFailures(boolean tls, boolean presentsCertificate) {
        this.tls = tls;
        this.presentsCertificate = presentsCertificate;
    }

    /** @param presentsCertificate whether this client has a certificate of its own to present */
    static HandshakeFailures overTls(boolean presentsCertificate) {
        return new HandshakeFailures(true, presentsCertificate);
    }

    static HandshakeFailures plaintext() {
        return new HandshakeFailures(false, false);
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String authority = next.authority();
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            public void start(Listener<R> listener, Metadata headers) {
                super.start(
                        new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                            @Override
                            public void onClose(Status status, Metadata trailers) {
                                super.onClose(
                                        tls
                                                ? translate(status, authority, presentsCertificate)
                                                : translatePlaintext(status, authority),
                                        trailers);
                            }
                        },
                        headers);
            }
        };
    }

    /** UNAUTHENTICATED, saying why, if the node at {@code authority} serves TLS only; else {@code status}. */
    static Status translatePlaintext(Status status, String authority) {
        String description = status.getDescription();
        if (description == null || !description.contains(TLS_ONLY)) {
            return status;
        }
        return Status.UNAUTHENTICATED
                .withDescription("the node at " + authority + " serves TLS only on this port: connect with TLS"
                        + " (--tls-ca, and --tls-cert with --tls-key if it asks for a client certificate)")
                .withCause(status.asException());
    }

    static Status translate(Status status, String authority, boolean presentsCertificate) {
        if (status.getCode() != Status.Code.UNAVAILABLE || status.getCause() == null) {
            return status;
        }
        String reason = reason(status.getCause(), authority, presentsCertificate);
        if (reason == null) {
            return status;
        }
        return Status.UNAUTHENTICATED
                .withDescription("TLS handshake with " + authority + " failed: " + reason)
                .withCause(status.getCause());
    }

    /** Why a handshake failed, in one line, or null if it is not a failure a retry cannot cure. */
    static @Nullable String reason(Throwable failure, String authority, boolean presentsCertificate) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            // The node's certificate, checked here.
            if (t instanceof CertificateExpiredException
                    || (t instanceof CertPathValidatorException v
                            && v.getReason() == CertPathValidatorException.BasicReason.EXPIRED)) {
                return "expired: the node's certificate is no longer valid (" + t.getMessage() + ")";
            }
            if (t instanceof CertificateNotYetValidException
                    || (t instanceof CertPathValidatorException v
                            && v.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID)) {
                return "not yet valid: the node's certificate starts later (" + t.getMessage() + "); is a clock wrong?";
            }
            if (t instanceof CertPathBuilderException) {
                return "untrusted certificate: the node's certificate is not signed by a CA this client trusts"
                        + " (--tls-ca)";
            }
            all.append(' ').append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        String text = all.toString().toLowerCase(Locale.ROOT);
        String host = authority.substring(0, Math.max(0, authority.lastIndexOf(':')));
        if (text.contains("no subject alternative") || text.contains("no name matching")) {
            return "wrong host: the node's certificate does not name " + host
                    + " (its subject alternative names must include the host or address clients connect to)";
        }
        if (text.contains("unable to find valid certification path") || text.contains("signature check failed")) {
            return "untrusted certificate: the node's certificate is not signed by a CA this client trusts"
                    + " (--tls-ca)";
        }
        // Alerts the node sent about this client's certificate (JDK and BoringSSL spellings).
        if (text.contains("certificate_required") || text.contains("certificate required")) {
            // The node names the CAs it accepts, and a client sends no certificate that none of
            // them signed: to the node, that client presented none.
            return presentsCertificate
                    ? "untrusted certificate: the node asks for a client certificate signed by a CA it trusts,"
                            + " and this client's certificate is not"
                    : "no client certificate: the node asks for one (--tls-cert and --tls-key)";
        }
        if (text.contains("certificate_expired") || text.contains("certificate expired")) {
            return "expired: the node refused this client's certificate as expired";
        }
        if (text.contains("unknown_ca")
                || text.contains("bad_certificate")
                || text.contains("certificate_unknown")
                || text.contains("bad certificate")
                || text.contains("certificate unknown")) {
            return "untrusted certificate: the node refused this client's certificate"
                    + " (not signed by the CA it trusts, or not valid)";
        }
        if (text.contains("not an ssl/tls record") || text.contains("notsslrecordexception")) {
            return "the node does not speak TLS on this port (is it started without --tls-cert?)";
        }
        return null;
    }
}
