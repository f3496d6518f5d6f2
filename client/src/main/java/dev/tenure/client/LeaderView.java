package dev.tenure.client;

import java.util.Arrays;
import java.util.Objects;

/**
 * Who leads an election, as an observer ({@link TenureClient#observe}) learned it: the leader's
 * session, token and published value, or no leader ({@link #hasLeader()} false: session and token
 * 0, value empty). One term of leadership is one token: a new token is a new leader, even when the
 * same session is elected again; the same token with another value is the same leader proclaiming.
 *
 * @param election the election's name
 * @param sessionId the leader's session (0: no leader)
 * @param token the leader's fencing token, strictly above every earlier leader's (0: no leader)
 * @param value the value the leader publishes (empty: none, or no leader); the array is the record's own
 * @param revision the revision of the change this view follows (for the first view, the revision
 *     the current state was read at)
 */
// An opaque payload handed on as read from the wire; equals compares it by its bytes.
@SuppressWarnings("ArrayRecordComponent")
public record LeaderView(String election, long sessionId, long token, byte[] value, long revision) {

    /** Validates the shape: a leader has a token; no leader has no session and no value. */
    public LeaderView {
        Objects.requireNonNull(election, "election");
        Objects.requireNonNull(value, "value");
        if (token == 0 && (sessionId != 0 || value.length != 0)) {
            throw new IllegalArgumentException("no leader (token 0) has no session and no value");
        }
    }

    /** No leader of {@code election}, as of {@code revision}. */
    public static LeaderView none(String election, long revision) {
        return new LeaderView(election, 0, 0, new byte[0], revision);
    }

    /** Whether the election has a leader. */
    public boolean hasLeader() {
        return token != 0;
    }

    /** Whether {@code other} shows the same leader (same token) publishing the same value. */
    public boolean sameLeaderAndValue(LeaderView other) {
        return token == other.token && sessionId == other.sessionId && Arrays.equals(value, other.value);
    }

    /** Every component compared, the value by its bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof LeaderView v
                && election.equals(v.election)
                && sessionId == v.sessionId
                && token == v.token
                && revision == v.revision
                && Arrays.equals(value, v.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(election, sessionId, token, revision) + 31 * Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return hasLeader()
                ? "LeaderView[" + election + ": session " + sessionId + ", token " + token + ", value " + value.length
                        + " bytes, revision " + revision + "]"
                : "LeaderView[" + election + ": no leader, revision " + revision + "]";
    }
}
