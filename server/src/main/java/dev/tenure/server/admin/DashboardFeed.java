package dev.tenure.server.admin;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpExchange;
import dev.tenure.core.Change;
import dev.tenure.gateway.WatchHub;
import dev.tenure.gateway.WatchSink;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The dashboard's live feed: the node's change feed ({@link WatchHub}, every name) as server-sent
 * events, one {@code change} event per change with its revision as the event id.
 *
 * <p>Each stream ends after {@link #STREAM_MS}, inside the admin port's response time limit (which
 * also holds off slow clients), and the browser reconnects at once ({@code retry}) with the last
 * revision it got as {@code Last-Event-ID}: the feed resumes after it from the kept changes, so no
 * change is missed or repeated across reconnects. If those changes are no longer kept, a {@code
 * reset} event tells the page to list again. A stream holds one admin thread while it lasts.
 */
final class DashboardFeed {
    /** How long one event stream lasts before the browser resumes it. */
    static final long STREAM_MS = (AdminHttp.REQUEST_SECONDS_MAX - 1) * 1000L;
    /** Milliseconds the browser waits before it resumes an ended stream. */
    static final int RETRY_MS = 100;
    /** Changes one stream may hold unsent; beyond them it ends, and the browser resumes from the kept ones. */
    static final int QUEUED_MAX = 10_000;

    private DashboardFeed() {}

    private record Item(@Nullable Change change, @Nullable String reset) {}

    static void stream(HttpExchange exchange, @Nullable WatchHub hub) throws IOException {
        if (hub == null) {
            AdminHttp.respond(exchange, 503, AdminHttp.error("this node has no change feed yet"));
            return;
        }
        long from = resumeFrom(exchange.getRequestHeaders().getFirst("Last-Event-ID"), hub);
        LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
        AutoCloseable watch = hub.watch("", true, from, new WatchSink() {
            @Override
            public boolean ready() {
                return true; // the queue is bounded below: a stream that falls behind ends
            }

            @Override
            public void current(List<Change> state, long revision) {}

            @Override
            public void change(Change change) {
                queue.add(new Item(change, null));
            }

            @Override
            public void end(Refusal why, String message) {
                queue.add(new Item(null, why + ": " + message));
            }
        });
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            write(out, "retry: " + RETRY_MS + "\n\n");
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STREAM_MS);
            long left;
            while ((left = deadline - System.nanoTime()) > 0 && queue.size() < QUEUED_MAX) {
                Item item = queue.poll(left, TimeUnit.NANOSECONDS);
                if (item == null) {
                    break;
                }
                Change c = item.change();
                if (c == null) {
                    write(out, "event: reset\ndata: " + new Gson().toJson(item.reset()) + "\n\n");
                    break;
                }
                write(out, "id: " + c.revision() + "\nevent: change\ndata: " + new Gson().toJson(event(c)) + "\n\n");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(watch);
        }
    }

    /** After the browser's last revision, if it sent one this node can read; else from now. */
    static long resumeFrom(@Nullable String lastEventId, WatchHub hub) {
        if (lastEventId != null) {
            try {
                long last = Long.parseLong(lastEventId.trim());
                if (last >= 0 && last <= hub.revision()) {
                    return last; // older than kept: the hub ends the watch with COMPACTED, a reset
                }
            } catch (NumberFormatException ignored) {
                // not one of ours: start from now
            }
        }
        return hub.revision();
    }

    static JsonObject event(Change c) {
        JsonObject e = new JsonObject();
        e.addProperty("revision", c.revision());
        e.addProperty("kind", c.kind().name());
        e.addProperty("name", c.name());
        e.addProperty("session_id", c.sessionId());
        e.addProperty("token", c.token());
        e.addProperty("end", c.end().name());
        e.addProperty("previous_token", c.previousToken());
        e.addProperty("shared", c.shared());
        e.addProperty("permits", c.permits());
        e.addProperty("at_ms", c.atMs());
        if (!c.value().isEmpty()) {
            e.addProperty("value", Base64.getEncoder().encodeToString(c.value().bytes()));
        }
        return e;
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void closeQuietly(@Nullable AutoCloseable watch) {
        if (watch == null) {
            return;
        }
        try {
            watch.close();
        } catch (Exception e) {
            // closing a watch only removes it from the hub
        }
    }
}
