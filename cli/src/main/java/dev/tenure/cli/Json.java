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
        o.addProperty("ttl_ms", lease.sessionTtl().toMillis());
        o.addProperty("granted_at_ms", lease.grantedAt().toEpochMilli());
        o.addProperty("previous_end", lease.previousEnd().map(Enum::name).orElse("NONE"));
        o.addProperty("previous_token", lease.previousToken());
        o.addProperty("renew", lease.renewMode().name());
        o.addProperty("max_hold_ms", lease.maxHold().toMillis());
        o.addProperty("lock_delay_ms", lease.lockDelay().toMillis());
        o.addProperty("lease_ttl_ms", lease.leaseTtl().toMillis());
        lease.previousCheckpoint()
                .ifPresentOrElse(
                        c -> {
                            JsonObject cp = new JsonObject();
                            cp.addProperty(
                                    "value_b64", java.util.Base64.getEncoder().encodeToString(c.value()));
                            cp.addProperty("token", c.token());
                            cp.addProperty("written_at_ms", c.writtenAt().toEpochMilli());
                            o.add("previous_checkpoint", cp);
                        },
                        () -> o.add("previous_checkpoint", null));
        return o;
    }
}
