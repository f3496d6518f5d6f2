package dev.tenure.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.WatchEvent;
import dev.tenure.api.v1.WatchKind;
import dev.tenure.core.Change;

/** A {@link Change} as a watch event of the wire. */
public final class WatchMapping {
    private WatchMapping() {}

    public static WatchEvent.Builder toWire(Change c) {
        return WatchEvent.newBuilder()
                .setRevision(c.revision())
                .setKind(kind(c.kind()))
                .setName(c.name())
                .setSessionId(c.sessionId())
                .setToken(c.token())
                .setEndValue(WireMapping.toWire(c.end()))
                .setPreviousToken(c.previousToken())
                .setShared(c.shared())
                .setPermits(c.permits())
                .setVersion(c.version())
                .setAtMs(c.atMs())
                .setValue(ByteString.copyFrom(c.value().bytes()));
    }

    static WatchKind kind(Change.Kind kind) {
        return switch (kind) {
            case GRANTED -> WatchKind.WATCH_KIND_GRANTED;
            case ENDED -> WatchKind.WATCH_KIND_ENDED;
            case QUEUED -> WatchKind.WATCH_KIND_QUEUED;
            case LEFT -> WatchKind.WATCH_KIND_LEFT;
            case KV_PUT -> WatchKind.WATCH_KIND_KV_PUT;
            case KV_DELETED -> WatchKind.WATCH_KIND_KV_DELETED;
            case PROCLAIMED -> WatchKind.WATCH_KIND_PROCLAIMED;
            case DOWNGRADED -> WatchKind.WATCH_KIND_DOWNGRADED;
        };
    }
}
