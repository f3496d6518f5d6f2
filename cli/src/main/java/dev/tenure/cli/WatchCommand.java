package dev.tenure.cli;

import com.google.gson.JsonObject;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.client.Watch;
import dev.tenure.client.WatchEvent;
import dev.tenure.client.WatchListener;
import dev.tenure.client.WatchRequest;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "watch",
        description = {
            "Follows a lock and key NAME (or every name under --prefix), one line per change.",
            "First its current state (holders, waiters"
                    + " and keys, each marked current, then a synced line), then one line per change: granted, ended"
                    + " (how), queued, left, kv_put, kv_deleted, each with its revision, until interrupted.",
            "--from-revision R resumes after R instead (no current state), with no change missed or repeated; a"
                    + " revision older than the node keeps is refused (exit 3: list again, watch without it).",
            "Served by the node's own replica, across reconnects and node failures: sequentially consistent, not"
                    + " linearizable. Needs read on NAME (on every name under the prefix)."
        })
final class WatchCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "The lock and key to watch.")
    String name;

    @Option(
            names = "--prefix",
            paramLabel = "P",
            description = "Every name that starts with P (empty: every name) instead of NAME.")
    String prefix;

    @Option(names = "--from-revision", paramLabel = "R", description = "Resume after revision R.")
    Long fromRevision;

    @Option(names = "--json", description = "One JSON object per line.")
    boolean json;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        WatchRequest request = request();
        PrintStream out = System.out;
        CompletableFuture<TenureException> ended = new CompletableFuture<>();
        try (TenureClient tenure = client.client()) {
            Watch watch = tenure.watch(request, new WatchListener() {
                @Override
                public void onEvent(WatchEvent e) {
                    out.println(json ? Json.line(json(e)) : text(e));
                    out.flush();
                }

                @Override
                public void onSynced(long revision) {
                    JsonObject o = new JsonObject();
                    o.addProperty("revision", revision);
                    o.addProperty("event", "synced");
                    out.println(json ? Json.line(o) : "synced at revision " + revision);
                    out.flush();
                }

                @Override
                public void onEnded(TenureException cause) {
                    ended.complete(cause);
                }
            });
            TenureException cause;
            try {
                cause = ended.join();
            } finally {
                watch.close();
            }
            if (cause.code() == TenureException.Code.REVISION_COMPACTED) {
                throw new ExitCodes.CliException(ExitCodes.CONFLICT, "revision compacted: " + cause.getMessage());
            }
            throw Failures.of(cause);
        }
    }

    private WatchRequest request() {
        if ((name == null) == (prefix == null)) {
            throw new IllegalArgumentException("give NAME or --prefix P, not both");
        }
        if (name != null && name.isEmpty()) {
            throw new IllegalArgumentException("NAME must not be empty (--prefix '' watches every name)");
        }
        WatchRequest r = name != null ? WatchRequest.name(name) : WatchRequest.prefix(prefix);
        if (fromRevision != null) {
            if (fromRevision < 0) {
                throw new IllegalArgumentException("--from-revision must not be negative, was " + fromRevision);
            }
            r = r.fromRevision(fromRevision);
        }
        return r;
    }

    static JsonObject json(WatchEvent e) {
        JsonObject o = new JsonObject();
        o.addProperty("revision", e.revision());
        o.addProperty("event", e.kind().name().toLowerCase(Locale.ROOT));
        o.addProperty("name", e.name());
        o.addProperty("current", e.current());
        switch (e.kind()) {
            case GRANTED -> {
                o.addProperty("token", e.token());
                o.addProperty("session", e.sessionId());
                o.addProperty("previous_end", e.end().map(Enum::name).orElse("NONE"));
                o.addProperty("previous_token", e.previousToken());
                o.addProperty("shared", e.shared());
                o.addProperty("permits", e.permits());
                o.addProperty("value", new String(e.value(), StandardCharsets.UTF_8));
            }
            case PROCLAIMED -> {
                o.addProperty("token", e.token());
                o.addProperty("session", e.sessionId());
                o.addProperty("value", new String(e.value(), StandardCharsets.UTF_8));
            }
            case DOWNGRADED -> {
                o.addProperty("token", e.token());
                o.addProperty("session", e.sessionId());
            }
            case ENDED -> {
                o.addProperty("token", e.token());
                o.addProperty("session", e.sessionId());
                o.addProperty("how", e.end().map(Enum::name).orElse("NONE"));
            }
            case QUEUED, LEFT -> {
                o.addProperty("session", e.sessionId());
                o.addProperty("shared", e.shared());
            }
            case KV_PUT, KV_DELETED -> {
                o.addProperty("version", e.version());
                o.addProperty("token", e.token());
                o.addProperty("ephemeral_session", e.sessionId());
            }
        }
        o.addProperty("at_ms", e.at().toEpochMilli());
        return o;
    }

    private static String text(WatchEvent e) {
        String what = switch (e.kind()) {
            case GRANTED ->
                "granted token " + e.token() + " to session " + e.sessionId() + " (previous "
                        + e.end().map(Enum::name).orElse("NONE") + ")";
            case ENDED ->
                "ended token " + e.token() + " of session " + e.sessionId() + " "
                        + e.end().map(Enum::name).orElse("NONE");
            case QUEUED -> "queued session " + e.sessionId();
            case LEFT -> "left session " + e.sessionId();
            case KV_PUT -> "kv put version " + e.version();
            case KV_DELETED -> "kv deleted version " + e.version();
            case PROCLAIMED ->
                "proclaimed token " + e.token() + " of session " + e.sessionId() + " value "
                        + new String(e.value(), StandardCharsets.UTF_8);
            case DOWNGRADED -> "downgraded token " + e.token() + " of session " + e.sessionId() + " to shared";
        };
        return String.format("%10d %-8s %s %s", e.revision(), e.current() ? "current" : "", e.name(), what);
    }
}
