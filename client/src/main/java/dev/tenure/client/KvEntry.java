package dev.tenure.client;

import dev.tenure.api.v1.KvGetResponse;
import java.time.Instant;
import java.util.Arrays;

/**
 * One value of the fenced key-value store.
 *
 * @param token the fence token that wrote it (0 for an unfenced write)
 * @param lock the lock of that token ("" for an unfenced write)
 * @param writtenAt state-machine time of the write
 * @param version 1 when the key was created, one more per put since
 * @param ephemeralSessionId the session whose end deletes the key; 0 when it outlives its writer
 */
// The value is bytes as stored; equals, hashCode and toString below compare and show its content.
@SuppressWarnings("ArrayRecordComponent")
public record KvEntry(
        String key, byte[] value, long token, String lock, Instant writtenAt, long version, long ephemeralSessionId) {
    public KvEntry {
        value = value.clone();
    }

    /** An entry as clients before versions saw it: version 1, not ephemeral. */
    public KvEntry(String key, byte[] value, long token, String lock, Instant writtenAt) {
        this(key, value, token, lock, writtenAt, 1, 0);
    }

    /** Whether the key is deleted when its session ({@link #ephemeralSessionId()}) ends. */
    public boolean ephemeral() {
        return ephemeralSessionId != 0;
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    static KvEntry from(String key, KvGetResponse r) {
        return new KvEntry(
                key,
                r.getValue().toByteArray(),
                r.getToken(),
                r.getLock(),
                Instant.ofEpochMilli(r.getWrittenAtMs()),
                r.getVersion(),
                r.getEphemeralSessionId());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvEntry e
                && key.equals(e.key)
                && Arrays.equals(value, e.value)
                && token == e.token
                && lock.equals(e.lock)
                && writtenAt.equals(e.writtenAt)
                && version == e.version
                && ephemeralSessionId == e.ephemeralSessionId;
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value) + Long.hashCode(token);
    }

    @Override
    public String toString() {
        return "KvEntry[key=" + key + ", " + value.length + " bytes, token=" + token + ", lock=" + lock + ", writtenAt="
                + writtenAt + ", version=" + version + ", ephemeralSessionId=" + ephemeralSessionId + "]";
    }
}
