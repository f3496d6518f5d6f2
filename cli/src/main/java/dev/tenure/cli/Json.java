package dev.tenure.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import dev.tenure.client.Lease;

/** One JSON object per line, for scripts. */
final class Json {

    private static final Gson GSON =
            new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    private Json() {}

    static String line(JsonObject object) {
        return GSON.toJson(object);
    }

    static JsonObject grant(Lease lease) {
        JsonObject o = new JsonObject();
        o.addProperty("lock", lease.lock());
        o.addProperty("token", lease.token());
        o.addProperty("session", lease.sessionId());
        o.addProperty("ttl_ms", lease.ttl().toMillis());
        o.addProperty("granted_at_ms", lease.grantedAtMs());
        o.addProperty("previous_end", lease.previousEnd().name());
        o.addProperty("previous_token", lease.previousToken());
        return o;
    }
}
