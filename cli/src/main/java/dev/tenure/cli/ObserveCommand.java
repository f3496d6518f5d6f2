package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.client.LeaderView;
import dev.tenure.client.Observation;
import dev.tenure.client.ObserveListener;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "observe",
        description = {
            "Follows the leader of election NAME: prints who leads now (or that nobody does), then one line per"
                    + " new leader, leader gone, and new value proclaimed, until interrupted. Every term of leadership"
                    + " is printed, in order, however short.",
            "--from-revision R resumes after R instead (no line for the current state: the first line comes with"
                    + " the first change); a revision older than the node keeps is refused (exit 3: observe again"
                    + " without it, a term may have passed unseen).",
            "Served by the node's own replica, as tenure watch is. Needs read on NAME."
        })
final class ObserveCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The election to observe.")
    String name;

    @Option(names = "--from-revision", paramLabel = "R", description = "Resume after revision R.")
    Long fromRevision;

    @Option(names = "--json", description = "One JSON object per line.")
    boolean json;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("NAME must not be empty");
        }
        if (fromRevision != null && fromRevision < 0) {
            throw new IllegalArgumentException("--from-revision must not be negative, was " + fromRevision);
        }
        PrintStream out = System.out;
        CompletableFuture<TenureException> ended = new CompletableFuture<>();
        ObserveListener listener = new ObserveListener() {
            @Override
            public void onLeader(LeaderView view) {
                out.println(json ? Json.line(json(view)) : text(view));
                out.flush();
            }

            @Override
            public void onEnded(TenureException cause) {
                ended.complete(cause);
            }
        };
        try (TenureClient tenure = client.client()) {
            Observation observation = fromRevision == null
                    ? tenure.observe(name, listener)
                    : tenure.observe(name, fromRevision, listener);
            TenureException cause;
            try {
                cause = ended.join();
            } finally {
                observation.close();
            }
            if (cause.code() == TenureException.Code.REVISION_COMPACTED) {
                throw new ExitCodes.CliException(
                        ExitCodes.CONFLICT,
                        "revision compacted: " + cause.getMessage() + " (a term may have passed unseen)");
            }
            throw Failures.of(cause);
        }
    }

    static JsonObject json(LeaderView v) {
        JsonObject o = new JsonObject();
        o.addProperty("election", v.election());
        o.addProperty("leader", v.hasLeader());
        o.addProperty("session", v.sessionId());
        o.addProperty("token", v.token());
        o.addProperty("value", new String(v.value(), StandardCharsets.UTF_8));
        o.addProperty("revision", v.revision());
        return o;
    }

    private static String text(LeaderView v) {
        return v.hasLeader()
                ? String.format(
                        "%10d leader of %s: session %d token %d value %s",
                        v.revision(),
                        v.election(),
                        v.sessionId(),
                        v.token(),
                        new String(v.value(), StandardCharsets.UTF_8))
                : String.format("%10d no leader of %s", v.revision(), v.election());
    }
}
