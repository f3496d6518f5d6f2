package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "release",
        description = {
            "Releases LOCK if TOKEN is its current grant and this command's session holds it"
                    + " (compare-and-delete); otherwise exits 3 and changes nothing.",
            "With --force, ends the lease holding TOKEN whichever session holds it: it ends REVOKED,"
                    + " the lock's lock delay applies, its holder is told, and the history names this session."
        })
final class ReleaseCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "LOCK")
    String lock;

    @Option(names = "--token", required = true, description = "The fencing token of the lease to end.")
    long token;

    @Option(
            names = "--force",
            description = {
                "A forced release: end another session's lease (REVOKED, lock delay applies). An admin act:",
                "needs `admin` in the node's --acl; a node without an ACL refuses it (exit 6) unless it was",
                "started with --unsafe-allow-forced-release."
            })
    boolean force;

    @Option(names = "--json", description = "One JSON object on one line: lock, token, ended (RELEASED or REVOKED).")
    boolean json;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        try (TenureClient tenure = client.client();
                Session session = tenure.openSession()) {
            if (force) {
                session.forceRelease(lock, token);
            } else {
                session.release(lock, token);
            }
            if (json) {
                JsonObject o = new JsonObject();
                o.addProperty("lock", lock);
                o.addProperty("token", token);
                o.addProperty("ended", force ? "REVOKED" : "RELEASED");
                o.addProperty("session", session.id());
                System.out.println(Json.line(o));
            } else if (force) {
                System.out.printf("revoked %s token %d (forced by session %d)%n", lock, token, session.id());
            } else {
                System.out.printf("released %s token %d%n", lock, token);
            }
            return ExitCodes.OK;
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }
}
