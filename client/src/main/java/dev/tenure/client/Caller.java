package dev.tenure.client;

import com.google.protobuf.ByteString;

/**
 * The session a request acts for, and the secret its node gave it at open: every request that
 * names a session carries both, and the node refuses one whose secret is not the session's
 * (session ids are sequential and shown by lock status; the secret is what makes a session this
 * client's). {@link #NONE}: a request made outside any session.
 */
record Caller(long sessionId, ByteString secret) {
    static final Caller NONE = new Caller(0, ByteString.EMPTY);
}
