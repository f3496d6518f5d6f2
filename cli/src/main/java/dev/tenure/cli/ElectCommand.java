package dev.tenure.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.Lease;
import dev.tenure.client.LockStatus;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "elect",
        description = {
            "Campaigns in election NAME and leads once elected.",
            "Candidates queue FIFO; once elected, it prints one line (with --json",
            "an object with election, token and value) and leads until SIGINT/SIGTERM (resigns: the next",
            "candidate is elected at once, exit 0) or until the leadership is lost (exit 4). With -- CMD,",
            "runs CMD while leading, by the rules of tenure run (its process group is stopped before",
            "anyone else can be elected). An election is a lock: the leader's token fences writes",
            "(tenure kv put --lock NAME --token T). --list shows the leader and the candidates in order."
        })
final class ElectCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Parameters(
            index = "1..*",
            paramLabel = "CMD",
            arity = "0..*",
            description = "A command to run while leading, and its arguments (after --).")
    @Nullable
    List<String> command;

    @Mixin
    ClientOptions client;

    @Mixin
    PolicyOptions policy;

    @Option(
            names = "--value",
            description = "The value the leader publishes (UTF-8; at most electionValueBytesMax, 1 KiB by default).")
    String value = "";

    @Option(names = "--json", description = "Print one JSON object on one line.")
    boolean json;

    @Option(names = "--list", description = "List the leader and the queued candidates, in FIFO order; no campaign.")
    boolean list;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (list) {
            return list();
        }
        if (policy.permits != 1 || policy.shared) {
            throw new CliException(
                    ExitCodes.BAD_INPUT, "an election is exclusive: --permits and --shared do not apply");
        }
        RunCommand run = command == null || command.isEmpty() ? null : RunCommand.under(client, policy, command, name);
        if (run != null) {
            run.prepare();
        }
        CompletableFuture<String> stop = Signals.termination();
        try (TenureClient tenure = client.client();
                Session session = tenure.openSession()) {
            Lease lease = session.acquire(
                    name,
                    policy.options()
                            .value(value.getBytes(StandardCharsets.UTF_8))
                            .build());
            print(lease);
            if (run == null) {
                return AcquireCommand.hold(lease, name, client, policy, stop);
            }
            int code = run.runHeld(lease, stop);
            // Asked to stop, the leader resigned once CMD's group was gone: that is a clean end.
            return stop.isDone() ? ExitCodes.OK : code;
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    private void print(Lease lease) {
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("election", name);
            o.addProperty("token", lease.token());
            o.addProperty("value", value);
            o.addProperty("session", lease.sessionId());
            System.out.println(Json.line(o));
        } else {
            System.out.printf(
                    "elected %s token %d session %d value %s%n", name, lease.token(), lease.sessionId(), value);
        }
        System.out.flush();
    }

    private int list() {
        try (TenureClient tenure = client.client()) {
            LockStatus s = tenure.status(name);
            JsonObject o = new JsonObject();
            o.addProperty("election", name);
            s.holder()
                    .ifPresentOrElse(
                            h -> {
                                JsonObject leader = new JsonObject();
                                leader.addProperty("session", h.sessionId());
                                leader.addProperty("client_name", h.clientName());
                                leader.addProperty("value", text(h.value()));
                                leader.addProperty(
                                        "value_b64", Base64.getEncoder().encodeToString(h.value()));
                                leader.addProperty("since_ms", h.since().toEpochMilli());
                                leader.addProperty("token", h.token());
                                o.add("leader", leader);
                            },
                            () -> o.add("leader", null));
            JsonArray candidates = new JsonArray();
            for (LockStatus.Waiter w : s.waiters()) {
                JsonObject c = new JsonObject();
                c.addProperty("session", w.sessionId());
                c.addProperty("client_name", w.clientName());
                c.addProperty("value", text(w.value()));
                c.addProperty("value_b64", Base64.getEncoder().encodeToString(w.value()));
                c.addProperty("since_ms", w.since().toEpochMilli());
                candidates.add(c);
            }
            o.add("candidates", candidates);
            if (json) {
                System.out.println(Json.line(o));
            } else {
                System.out.println(o);
            }
            return ExitCodes.OK;
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
