package dev.tenure.server;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AttachResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The secret each session opened in these tests was given, so requests for it can show it. */
public final class Secrets {
    private static final Map<Long, ByteString> BY_SESSION = new ConcurrentHashMap<>();

    private Secrets() {}

    /** Keeps the secret an Opened gave (a Resume's Opened gives none). */
    public static void opened(AttachResponse.Opened opened) {
        if (!opened.getSessionSecret().isEmpty()) {
            BY_SESSION.put(opened.getSessionId(), opened.getSessionSecret());
        }
    }

    public static ByteString of(long sessionId) {
        return BY_SESSION.getOrDefault(sessionId, ByteString.EMPTY);
    }
}
