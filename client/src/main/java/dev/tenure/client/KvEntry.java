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
 */
// The value is bytes as stored; equals, hashCode and toString below compare and show its content.
@SuppressWarnings("ArrayRecordComponent")
public record KvEntry(String key, byte[] value, long token, String lock, Instant writtenAt) {
    public KvEntry {
        value = value.clone();
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    static KvEntry from(String key, KvGetResponse r) {
        return new KvEntry(
                key, r.getValue().toByteArray(), r.getToken(), r.getLock(), Instant.ofEpochMilli(r.getWrittenAtMs()));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvEntry e
                && key.equals(e.key)
                && Arrays.equals(value, e.value)
                && token == e.token
                && lock.equals(e.lock)
                && writtenAt.equals(e.writtenAt);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value) + Long.hashCode(token);
    }

    @Override
    public String toString() {
        return "KvEntry[key=" + key + ", " + value.length + " bytes, token=" + token + ", lock=" + lock + ", writtenAt="
                + writtenAt + "]";
    }
}
