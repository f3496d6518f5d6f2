package dev.tenure.server.security;

import io.aeron.security.Authenticator;
import io.aeron.security.AuthenticatorSupplier;
import io.aeron.security.SessionProxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The door of a member's consensus module and of its archive: a client is admitted only once it
 * has answered a fresh random challenge with the HMAC of it under the cluster secret
 * ({@link ClusterSecret#answer}). Without it, any process that reaches a member's ingress port
 * could open a cluster session and append commands to the replicated log, and any that reaches its
 * archive control port could read the log, or truncate and delete recordings. The secret never
 * travels: a recorded answer is worth nothing, as no challenge is asked twice.
 *
 * <p>Whom it sees: at the consensus module, every ingress session (each node's gateway) and every
 * backup query (a member with an empty data directory copying its peers' snapshot,
 * {@code MemberBootstrap}); at the archive, every control session: the member's own consensus
 * module, service and log retention, and a peer's archive or backup copying recordings from it.
 * All carry {@link SecretChallengeCredentials}. Members' consensus traffic between each other does
 * not pass through an authenticator at all.
 *
 * <p>Why at most one challenge per session id at a time: Aeron gives every backup query the same
 * session id (-1), and a {@link SessionProxy} names its session only by that id. An answer can be
 * credited to the session that was asked only if no other session with that id holds a challenge
 * meanwhile; otherwise one client's right answer could admit another that was asked the same
 * id's question and never answered. So a second session with that id is left waiting (Aeron
 * presents it again on its next duty cycle) until the first is decided, or until Aeron has
 * certainly dropped it: Aeron times a pending session out {@code sessionTimeout} after its last
 * activity (its connect, or an answer, both seen here too), and checks that before it presents
 * the session, so a challenge forgotten later than that can never be answered by its session.
 *
 * <p>An archive gives each control session an id of its own, so there the one-challenge-per-id
 * rule never makes a session wait; its pending sessions time out after its connect timeout, which
 * is what {@code sessionTimeout} is then.
 *
 * <p>Runs on the thread of the consensus module or archive that made it, as Aeron calls it.
 */
public final class SecretChallengeAuthenticator implements Authenticator {

    /** What an admitted session's principal is: whoever holds the cluster secret. */
    private static final byte[] PRINCIPAL = "cluster-secret".getBytes(StandardCharsets.US_ASCII);

    /** Past Aeron's own timeout by more than one of its duty cycles, however slow. */
    private static final long FORGET_MARGIN_MS = 1_000;

    private final ClusterSecret secret;
    private final long forgetAfterMs;
    private final SecureRandom random = new SecureRandom();
    private final Long2ObjectHashMap<Challenge> challenges = new Long2ObjectHashMap<>();

    /**
     * @param sessionTimeout how long after its last activity Aeron drops a session that was not
     *     admitted: the consensus module's {@code ConsensusModule.Context.sessionTimeoutNs}, the archive's
     *
     *     {@code connectTimeoutNs}
     */
    SecretChallengeAuthenticator(ClusterSecret secret, Duration sessionTimeout) {
        this.secret = secret;
        this.forgetAfterMs = sessionTimeout.toMillis() + FORGET_MARGIN_MS;
    }

    /** For a consensus module's or an archive's context: one authenticator per one it starts. */
    public static AuthenticatorSupplier supplier(ClusterSecret secret, Duration sessionTimeout) {
        return () -> new SecretChallengeAuthenticator(secret, sessionTimeout);
    }

    /** What a client sends up front counts for nothing: every client is challenged. */
    @Override
    public void onConnectRequest(long sessionId, byte[] encodedCredentials, long nowMs) {
        forgetExpired(nowMs);
    }

    @Override
    public void onConnectedSession(SessionProxy session, long nowMs) {
        forgetExpired(nowMs);
        if (challenges.containsKey(session.sessionId())) {
            return; // another session with this id holds a challenge: this one waits its turn
        }
        byte[] nonce = new byte[ClusterSecret.CHALLENGE_BYTES];
        random.nextBytes(nonce);
        if (session.challenge(nonce)) {
            challenges.put(session.sessionId(), new Challenge(nonce, nowMs));
        }
    }

    @Override
    public void onChallengeResponse(long sessionId, byte[] encodedCredentials, long nowMs) {
        Challenge challenge = challenges.get(sessionId);
        if (challenge == null) {
            return;
        }
        // Aeron counted the answer as activity of the challenged session: keep its challenge as long.
        challenge.lastActivityMs = nowMs;
        if (challenge.verdict == Verdict.UNANSWERED) {
            // Only the first answer counts: the client is asked once and answers once.
            boolean right = MessageDigest.isEqual(secret.answer(challenge.nonce), encodedCredentials);
            challenge.verdict = right ? Verdict.RIGHT : Verdict.WRONG;
        }
    }

    @Override
    public void onChallengedSession(SessionProxy session, long nowMs) {
        long id = session.sessionId();
        Challenge challenge = challenges.get(id);
        if (challenge == null) {
            // Not a session this authenticator asked (it cannot be, see the class comment): refuse.
            session.reject();
            return;
        }
        switch (challenge.verdict) {
            case UNANSWERED -> {
                // Wait: Aeron drops a client that never answers after its session timeout.
            }
            case RIGHT -> {
                if (session.authenticate(PRINCIPAL)) {
                    challenges.remove(id);
                }
            }
            case WRONG -> {
                session.reject();
                challenges.remove(id);
            }
        }
    }

    /** Challenges whose sessions Aeron has certainly dropped, unanswered or undecided. */
    private void forgetExpired(long nowMs) {
        challenges.values().removeIf(c -> nowMs - c.lastActivityMs > forgetAfterMs);
    }

    private enum Verdict {
        UNANSWERED,
        RIGHT,
        WRONG
    }

    private static final class Challenge {
        final byte[] nonce;
        long lastActivityMs;
        Verdict verdict = Verdict.UNANSWERED;

        Challenge(byte[] nonce, long nowMs) {
            this.nonce = nonce;
            this.lastActivityMs = nowMs;
        }
    }
}
