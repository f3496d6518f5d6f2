package dev.tenure.gateway;

/**
 * Deliberately broken variants of the gateway's safety rules. Only the simulation turns one on, to
 * show that its checkers catch a gateway that breaks the rule (a checker that cannot fail proves
 * nothing); the server always runs {@link #NONE}. They live here, in the code they break, so that
 * the mutation tests break the code the server runs and not a copy of it.
 */
public enum Mutation {
    NONE,
    /** Acknowledges a keepalive on receipt instead of once the session's renewal is committed. */
    ACK_BEFORE_COMMIT,
    /** Confirms the client's disconnect grace but ends a closed stream's session at once. */
    GRACE_NOT_KEPT
}
