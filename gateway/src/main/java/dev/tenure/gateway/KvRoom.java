package dev.tenure.gateway;

import org.jspecify.annotations.Nullable;

/**
 * Whether a KV put is certain to be refused for want of room, by this node's latest view of its
 * replica's state: checked before the put is written to the log, so a put that could only be
 * refused costs the log nothing. The decision that counts is still taken at apply time.
 */
public interface KvRoom {
    /** No view: every put goes to the log, and apply decides. */
    KvRoom NONE = (key, entryBytes, principal) -> null;

    /**
     * Why a put of {@code key}, storing {@code entryBytes} (as {@code kvBytesMax} counts them) for
     * {@code principal} (empty: none), is refused by the state the view shows, naming the limit;
     * null if it fits there.
     */
    @Nullable
    String refusal(String key, long entryBytes, String principal);
}
