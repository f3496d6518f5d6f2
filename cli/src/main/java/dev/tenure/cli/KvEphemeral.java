package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code tenure kv put KEY VALUE --ephemeral}: writes KEY within a session and holds the session,
 * renewed by the client as {@code tenure acquire} holds its lease, so that KEY lives exactly as long
 * as this process does. The server deletes KEY in the step that ends the session: on SIGINT/SIGTERM
 * the command closes it (exit 0); if the session is lost (expired, ended by the server) KEY is
 * already gone and the command exits 4.
 */
final class KvEphemeral {
    private KvEphemeral() {}

    static int hold(ClientOptions client, String key, byte[] value, boolean json) throws InterruptedException {
        CompletableFuture<String> stop = Signals.termination();
        try (TenureClient tenure = client.client();
                Session session = tenure.openSession()) {
            long version = session.putEphemeral(key, value);
            print(key, version, session.id(), json);
            Object first = CompletableFuture.anyOf(stop, session.lost()).get();
            if (first instanceof LossReason reason) {
                throw new CliException(
                        ExitCodes.LEASE_LOST,
                        "session " + session.id() + " lost: " + reason + "; the ephemeral key " + key
                                + " is deleted with it");
            }
            return ExitCodes.OK; // closing the session deletes the key
        } catch (TenureException e) {
            throw Failures.of(e);
        } catch (ExecutionException e) {
            throw new CliException(ExitCodes.UNEXPECTED, "waiting on session: " + e.getCause());
        }
    }

    private static void print(String key, long version, long sessionId, boolean json) {
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("key", key);
            o.addProperty("version", version);
            o.addProperty("session", sessionId);
            System.out.println(Json.line(o));
        } else {
            System.out.println("ok (version " + version + ", ephemeral while session " + sessionId + " lives)");
        }
        System.out.flush();
    }
}
