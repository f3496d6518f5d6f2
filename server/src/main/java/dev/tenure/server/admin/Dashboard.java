package dev.tenure.server.admin;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.gateway.WatchHub;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dashboard on the admin port: a static page ({@code /}, {@code /dashboard.js}, {@code
 * /dashboard.css}, resources of this jar) and the JSON it reads: {@code /api/cluster} (the node's
 * last status probe, so no request adds a log entry), {@code /api/locks?prefix=&after=} (one page
 * of the listing) and {@code /api/lock?name=} (one lock's status), both read through the log as
 * {@code ListLocks} and {@code LockStatus} are, and {@code /api/events}, the node's change feed as
 * server-sent events ({@link DashboardFeed}). Every path needs what /status needs: the admin port's
 * TLS and the {@code monitor} permission.
 */
public final class Dashboard {
    /** What the dashboard reads from its node. */
    public interface Source {
        /** The node's last status probe (never a new log read). */
        ProbeResult cluster();

        CompletableFuture<ListLocksResponse> locks(String prefix, String after);

        CompletableFuture<LockStatusResponse> lock(String name);

        /** The node's change feed; null when the node has none yet. */
        WatchHub feed();
    }

    /** Lets an exchange in, or answers it (403) and says no. */
    interface Gate {
        boolean admits(HttpExchange exchange) throws IOException;
    }

    /**
     * Seconds a read through the log may take before the dashboard answers 503. The log answers
     * or fails within the node's request timeout; this only bounds a read that neither happens to.
     */
    static final int READ_SECONDS_MAX = 30;

    /** Names and pages beyond these are refused (400) before they reach the log. */
    static final int NAME_BYTES_MAX = 1024;

    private static final Map<String, String> STATIC = new TreeMap<>(Map.of(
            "/", "index.html",
            "/dashboard.js", "dashboard.js",
            "/dashboard.css", "dashboard.css"));

    private Dashboard() {}

    static void serve(HttpServer http, Source source, Gate gate) {
        http.removeContext("/");
        http.createContext("/", exchange -> {
            String file = STATIC.get(exchange.getRequestURI().getPath());
            if (file == null) {
                AdminHttp.respond(exchange, 404, AdminHttp.error(NO_SUCH_PATH));
            } else if (AdminHttp.answersOnly(exchange, exchange.getRequestURI().getPath()) && gate.admits(exchange)) {
                AdminHttp.respond(exchange, 200, resource(file), contentType(file));
            }
        });
        http.createContext("/api/cluster", exchange -> {
            if (AdminHttp.answersOnly(exchange, "/api/cluster") && gate.admits(exchange)) {
                AdminHttp.respond(exchange, 200, new Gson().toJson(cluster(source.cluster())));
            }
        });
        http.createContext("/api/locks", exchange -> {
            if (AdminHttp.answersOnly(exchange, "/api/locks") && gate.admits(exchange)) {
                Map<String, String> q = query(exchange);
                String prefix = q.getOrDefault("prefix", "");
                String after = q.getOrDefault("after", "");
                if (tooLong(exchange, prefix) || tooLong(exchange, after)) {
                    return;
                }
                answer(exchange, source.locks(prefix, after));
            }
        });
        http.createContext("/api/lock", exchange -> {
            if (AdminHttp.answersOnly(exchange, "/api/lock") && gate.admits(exchange)) {
                String name = query(exchange).getOrDefault("name", "");
                if (name.isEmpty()) {
                    AdminHttp.respond(exchange, 400, AdminHttp.error("/api/lock needs ?name=LOCK"));
                } else if (!tooLong(exchange, name)) {
                    answer(exchange, source.lock(name));
                }
            }
        });
        http.createContext("/api/events", exchange -> {
            if (AdminHttp.answersOnly(exchange, "/api/events") && gate.admits(exchange)) {
                DashboardFeed.stream(exchange, source.feed());
            }
        });
    }

    static final String NO_SUCH_PATH = "no such path: the admin port serves /health, /status, /metrics, the"
            + " dashboard at / and its /api/cluster, /api/locks, /api/lock and /api/events";

    /** The last probe's status, and whether it is too old to trust (the page then marks it stale). */
    static JsonObject cluster(ProbeResult last) {
        JsonObject body = new JsonObject();
        body.addProperty("stale", last.status() == null || last.stale());
        body.addProperty("probe_age_ms", last.ageMs());
        if (last.status() != null) {
            body.add("status", JsonParser.parseString(AdminHttp.json(last.status())));
        }
        return body;
    }

    private static void answer(HttpExchange exchange, CompletableFuture<? extends com.google.protobuf.Message> read)
            throws IOException {
        try {
            AdminHttp.respond(exchange, 200, AdminHttp.json(read.get(READ_SECONDS_MAX, TimeUnit.SECONDS)));
        } catch (ExecutionException | TimeoutException e) {
            // No quorum (or no leader) to read through: the page keeps what it last showed, marked stale.
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            AdminHttp.respond(exchange, 503, AdminHttp.error("the log did not answer this read: " + cause));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            AdminHttp.respond(exchange, 503, AdminHttp.error("the node is stopping"));
        }
    }

    private static boolean tooLong(HttpExchange exchange, String value) throws IOException {
        if (value.getBytes(StandardCharsets.UTF_8).length <= NAME_BYTES_MAX) {
            return false;
        }
        AdminHttp.respond(exchange, 400, AdminHttp.error("a name or prefix is at most " + NAME_BYTES_MAX + " bytes"));
        return true;
    }

    static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> out = new TreeMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : java.util.regex.Pattern.compile("&").split(raw, -1)) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            out.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String resource(String file) throws IOException {
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard/" + file)) {
            if (in == null) {
                throw new IOException("the server jar lacks the dashboard's " + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String contentType(String file) {
        if (file.endsWith(".js")) {
            return "text/javascript; charset=utf-8";
        }
        return file.endsWith(".css") ? "text/css; charset=utf-8" : "text/html; charset=utf-8";
    }
}
