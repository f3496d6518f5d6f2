package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.aeron.security.SessionProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The authenticator's rules, driven as Aeron's consensus module drives it: connect request, then
 * the connected session presented until it is challenged, then the answer, then the challenged
 * session presented until it is decided. Session id -1 is what Aeron gives every backup query.
 */
class SecretChallengeAuthenticatorTest {

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    private static final long FORGOTTEN_AFTER_MS = 11_000;

    private final ClusterSecret secret =
            new ClusterSecret("the cluster's own secret".getBytes(StandardCharsets.US_ASCII));
    private final SecretChallengeCredentials rightClient = new SecretChallengeCredentials(secret);
    private final SecretChallengeCredentials wrongClient = new SecretChallengeCredentials(
            new ClusterSecret("another cluster's secret".getBytes(StandardCharsets.US_ASCII)));
    private final SecretChallengeAuthenticator authenticator =
            new SecretChallengeAuthenticator(secret, SESSION_TIMEOUT);

    @Test
    void aClientThatAnswersWithTheSecretIsAdmitted() {
        Session client = connect(7, 0);
        answer(client, rightClient, 1);
        authenticator.onChallengedSession(client, 2);
        assertThat(client.state).isEqualTo(State.AUTHENTICATED);
        assertThat(client.principal).asString().isEqualTo("cluster-secret");
    }

    @Test
    void aClientWithAnotherSecretIsRejected() {
        Session client = connect(7, 0);
        answer(client, wrongClient, 1);
        authenticator.onChallengedSession(client, 2);
        assertThat(client.state).isEqualTo(State.REJECTED);
    }

    @Test
    void aClientWithoutCredentialsIsRejected() {
        // Aeron's NullCredentialsSupplier answers every challenge with no bytes.
        Session client = connect(7, 0);
        authenticator.onChallengeResponse(7, new byte[0], 1);
        authenticator.onChallengedSession(client, 2);
        assertThat(client.state).isEqualTo(State.REJECTED);
    }

    @Test
    void whatAClientSendsUpFrontAdmitsNobody() {
        Session client = new Session(7);
        authenticator.onConnectRequest(7, "the cluster's own secret".getBytes(StandardCharsets.US_ASCII), 0);
        authenticator.onConnectedSession(client, 0);
        assertThat(client.state).isEqualTo(State.CHALLENGED);
        authenticator.onChallengedSession(client, 1);
        assertThat(client.state).as("undecided until it answers").isEqualTo(State.CHALLENGED);
    }

    @Test
    void everyChallengeIsFreshSoARecordedAnswerIsWorthNothing() {
        Session first = connect(7, 0);
        byte[] recorded = rightClient.onChallenge(first.challenge);
        answer(first, rightClient, 1);
        authenticator.onChallengedSession(first, 2);
        assertThat(first.state).isEqualTo(State.AUTHENTICATED);

        Session replay = connect(8, 3);
        assertThat(replay.challenge).isNotEqualTo(first.challenge);
        authenticator.onChallengeResponse(8, recorded, 4);
        authenticator.onChallengedSession(replay, 5);
        assertThat(replay.state).isEqualTo(State.REJECTED);
    }

    @Test
    void onlyTheFirstAnswerCounts() {
        Session client = connect(7, 0);
        answer(client, wrongClient, 1);
        answer(client, rightClient, 2);
        authenticator.onChallengedSession(client, 3);
        assertThat(client.state).isEqualTo(State.REJECTED);
    }

    @Test
    void aChallengeThatCouldNotBeSentIsAskedAgain() {
        Session client = new Session(7);
        client.acceptsChallenge = false;
        authenticator.onConnectRequest(7, new byte[0], 0);
        authenticator.onConnectedSession(client, 0);
        assertThat(client.state).isEqualTo(State.CONNECTED);
        client.acceptsChallenge = true;
        authenticator.onConnectedSession(client, 1);
        answer(client, rightClient, 2);
        authenticator.onChallengedSession(client, 3);
        assertThat(client.state).isEqualTo(State.AUTHENTICATED);
    }

    /**
     * Two backup queries at once share id -1. The second is not challenged while the first is,
     * so the first one's right answer cannot admit the second, which never answered anything.
     */
    @Test
    void aSecondSessionWithTheSameIdWaitsUntilTheFirstIsDecided() {
        Session first = connect(-1, 0);
        Session second = new Session(-1);
        authenticator.onConnectRequest(-1, new byte[0], 1);
        authenticator.onConnectedSession(second, 1);
        assertThat(second.state).as("left waiting, not asked").isEqualTo(State.CONNECTED);

        answer(first, rightClient, 2);
        // Aeron presents the sessions in whatever order: the waiting one is not challenged, so it
        // is never presented as challenged, and the first answer can only admit the first.
        authenticator.onConnectedSession(second, 3);
        assertThat(second.state).isEqualTo(State.CONNECTED);
        authenticator.onChallengedSession(first, 3);
        assertThat(first.state).isEqualTo(State.AUTHENTICATED);

        authenticator.onConnectedSession(second, 4);
        assertThat(second.state).as("its turn now").isEqualTo(State.CHALLENGED);
        assertThat(second.challenge).isNotEqualTo(first.challenge);
        authenticator.onChallengedSession(second, 5);
        assertThat(second.state).as("undecided until it answers").isEqualTo(State.CHALLENGED);
        answer(second, wrongClient, 6);
        authenticator.onChallengedSession(second, 7);
        assertThat(second.state).isEqualTo(State.REJECTED);
    }

    @Test
    void aRejectedSessionFreesItsIdForTheNext() {
        Session first = connect(-1, 0);
        answer(first, wrongClient, 1);
        authenticator.onChallengedSession(first, 2);
        assertThat(first.state).isEqualTo(State.REJECTED);

        Session next = connect(-1, 3);
        answer(next, rightClient, 4);
        authenticator.onChallengedSession(next, 5);
        assertThat(next.state).isEqualTo(State.AUTHENTICATED);
    }

    /**
     * A challenged client that went silent (it crashed) holds its id until Aeron has certainly
     * dropped it, one session timeout after its last activity and a margin; then the id is free.
     */
    @Test
    void aSilentChallengedSessionHoldsItsIdOnlyUntilAeronHasDroppedIt() {
        connect(-1, 0); // challenged, then silent
        Session next = new Session(-1);
        authenticator.onConnectRequest(-1, new byte[0], 5_000);
        authenticator.onConnectedSession(next, FORGOTTEN_AFTER_MS);
        assertThat(next.state).as("Aeron may still hold the silent one").isEqualTo(State.CONNECTED);
        authenticator.onConnectedSession(next, FORGOTTEN_AFTER_MS + 1);
        assertThat(next.state).isEqualTo(State.CHALLENGED);
        answer(next, rightClient, FORGOTTEN_AFTER_MS + 2);
        authenticator.onChallengedSession(next, FORGOTTEN_AFTER_MS + 3);
        assertThat(next.state).isEqualTo(State.AUTHENTICATED);
    }

    @Test
    void anAnswerIsActivityThatKeepsTheChallenge() {
        Session client = connect(7, 0);
        answer(client, rightClient, 8_000);
        // Past the timeout counted from the challenge, but not from the answer: still decided on it.
        authenticator.onConnectRequest(9, new byte[0], FORGOTTEN_AFTER_MS + 1);
        authenticator.onChallengedSession(client, FORGOTTEN_AFTER_MS + 1);
        assertThat(client.state).isEqualTo(State.AUTHENTICATED);
    }

    @Test
    void aChallengedSessionThisAuthenticatorDidNotAskIsRejected() {
        Session stranger = new Session(7);
        stranger.state = State.CHALLENGED;
        authenticator.onChallengedSession(stranger, 0);
        assertThat(stranger.state).isEqualTo(State.REJECTED);
    }

    @Test
    void aClientAnswersOnlyChallengesOfTheExpectedShape() {
        assertThat(rightClient.encodedCredentials()).isEmpty();
        assertThat(rightClient.onChallenge(new byte[ClusterSecret.CHALLENGE_BYTES]))
                .hasSize(32);
        assertThat(rightClient.onChallenge(new byte[5])).isEmpty();
        assertThat(rightClient.onChallenge(null)).isEmpty();
    }

    /** A session that has connected and been challenged, as Aeron would bring it. */
    private Session connect(long id, long nowMs) {
        Session session = new Session(id);
        authenticator.onConnectRequest(id, new byte[0], nowMs);
        authenticator.onConnectedSession(session, nowMs);
        assertThat(session.state).isEqualTo(State.CHALLENGED);
        return session;
    }

    private void answer(Session session, SecretChallengeCredentials client, long nowMs) {
        authenticator.onChallengeResponse(session.id, client.onChallenge(session.challenge), nowMs);
    }

    private enum State {
        CONNECTED,
        CHALLENGED,
        AUTHENTICATED,
        REJECTED
    }

    /** Aeron's view of one pending session, as far as the authenticator can change it. */
    private static final class Session implements SessionProxy {
        final long id;
        State state = State.CONNECTED;
        boolean acceptsChallenge = true;
        byte[] challenge;
        byte[] principal;

        Session(long id) {
            this.id = id;
        }

        @Override
        public long sessionId() {
            return id;
        }

        @Override
        public boolean challenge(byte[] encodedChallenge) {
            assertThat(state).as("challenged once").isEqualTo(State.CONNECTED);
            if (!acceptsChallenge) {
                return false;
            }
            challenge = encodedChallenge.clone();
            state = State.CHALLENGED;
            return true;
        }

        @Override
        public boolean authenticate(byte[] encodedPrincipal) {
            assertThat(state).as("only a challenged session is admitted").isEqualTo(State.CHALLENGED);
            principal = encodedPrincipal;
            state = State.AUTHENTICATED;
            return true;
        }

        @Override
        public void reject() {
            state = State.REJECTED;
        }
    }
}
