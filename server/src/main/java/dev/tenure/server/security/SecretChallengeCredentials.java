package dev.tenure.server.security;

import io.aeron.security.CredentialsSupplier;

/**
 * A cluster client's half of {@link SecretChallengeAuthenticator}: it sends nothing with its
 * connect request and answers the consensus module's challenge with the HMAC of it under the
 * cluster secret, so the secret itself never leaves the node.
 */
public final class SecretChallengeCredentials implements CredentialsSupplier {

    private static final byte[] NONE = new byte[0];

    private final ClusterSecret secret;

    public SecretChallengeCredentials(ClusterSecret secret) {
        this.secret = secret;
    }

    @Override
    public byte[] encodedCredentials() {
        return NONE;
    }

    /**
     * The answer to a challenge of the expected shape; anything else gets an empty answer (which
     * the authenticator refuses) rather than an HMAC of bytes chosen by whoever sent them.
     */
    @Override
    public byte[] onChallenge(byte[] encodedChallenge) {
        if (encodedChallenge == null || encodedChallenge.length != ClusterSecret.CHALLENGE_BYTES) {
            return NONE;
        }
        return secret.answer(encodedChallenge);
    }
}
