package dev.tenure.server.admin;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsServer;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.server.security.PrincipalInterceptor;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The node's admin endpoint (HTTP, or HTTPS on a node with TLS; JSON): {@code /health} answers 200
 * when the node's own probe, about once a second, last saw a command commit through the log and
 * 503 otherwise, without reaching the log itself; {@code /status} has the full node status;
 * {@code /metrics} has the node's metrics in Prometheus' text format (see {@link NodeMetrics}).
 * Each path answers GET (and HEAD) only, on that exact path: any other method gets 405 with an
 * {@code Allow} header, any other path 404, so that no request means what it does not say.
 */
public final class AdminHttp implements AutoCloseable {
    /**
     * Threads that serve admin requests, started as needed and ended when idle: slow clients hold
     * up {@code /health} only once there are more of them than threads, and then each for at most
     * {@link #REQUEST_SECONDS_MAX}.
     */
    static final int THREADS = 32;
    /** Seconds a client has to send its whole request, and to take the whole response. */
    static final int REQUEST_SECONDS_MAX = 5;

    private final HttpServer http;
    private final ExecutorService executor;
    private final Predicate<Optional<String>> monitors;

    private AdminHttp(HttpServer http, ExecutorService executor, Predicate<Optional<String>> monitors) {
        this.http = http;
        this.executor = executor;
        this.monitors = monitors;
    }

    /**
     * From now on, also serves the dashboard ({@link Dashboard}) at {@code /} and its API under
     * {@code /api/}, to the clients {@code monitors} lets in, as /status.
     */
    public void serveDashboard(Dashboard.Source source) {
        Dashboard.serve(http, source, exchange -> permitted(exchange, monitors));
    }

    /** The methods every path answers. */
    static final String ALLOWED_METHODS = "GET, HEAD";

    public static AdminHttp start(
            String host,
            int port,
            Supplier<ProbeResult> health,
            Supplier<ServerStatusResponse> status,
            Supplier<String> metrics)
            throws IOException {
        return start(host, port, null, principal -> true, health, status, metrics);
    }

    /**
     * As above; with {@code https} (not null), HTTPS only, configured by it. {@code monitors}
     * says whether a client, by its certificate's CN (empty: none), may read /status and /metrics;
     * /health is open to every client, for load balancers, and says nothing of locks. {@code
     * health} is the node's last probe: /health never reads more than that, so no request to it
     * reaches the log.
     */
    public static AdminHttp start(
            String host,
            int port,
            @Nullable HttpsConfigurator https,
            Predicate<Optional<String>> monitors,
            Supplier<ProbeResult> health,
            Supplier<ServerStatusResponse> status,
            Supplier<String> metrics)
            throws IOException {
        // The JDK's server reads a request on the thread that serves it, and waits for a partial
        // request forever unless told otherwise: with one thread, one client that sends half a
        // request (a slowloris) would hold /health until it left. These limits are read once, when
        // the first server is made; a value the operator set is kept.
        System.setProperty(
                "sun.net.httpserver.maxReqTime",
                System.getProperty("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS_MAX)));
        System.setProperty(
                "sun.net.httpserver.maxRspTime",
                System.getProperty("sun.net.httpserver.maxRspTime", Integer.toString(REQUEST_SECONDS_MAX)));
        // It writes a response's headers and body apart: without TCP_NODELAY, a client that keeps
        // its connection open (a scraper, a load balancer) waits out its own delayed ACK, about
        // 40 ms, for every body.
        System.setProperty("sun.net.httpserver.nodelay", System.getProperty("sun.net.httpserver.nodelay", "true"));
        HttpServer http = create(new InetSocketAddress(host, port), https);
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor executor =
                new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "tenure-admin-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        executor.allowCoreThreadTimeOut(true);
        http.setExecutor(executor);
        // Every path the others do not cover, whatever the method.
        http.createContext("/", exchange -> respond(exchange, 404, error(NO_SUCH_PATH)));
        http.createContext("/health", exchange -> {
            if (answersOnly(exchange, "/health")) {
                ProbeResult last = health.get();
                respond(exchange, last.ok() ? 200 : 503, new Gson().toJson(healthBody(last)));
            }
        });
        http.createContext("/status", exchange -> {
            if (answersOnly(exchange, "/status") && permitted(exchange, monitors)) {
                respond(exchange, 200, json(status.get()));
            }
        });
        http.createContext("/metrics", exchange -> {
            if (answersOnly(exchange, "/metrics") && permitted(exchange, monitors)) {
                respond(exchange, 200, metrics.get(), "text/plain; version=0.0.4; charset=utf-8");
            }
        });
        http.start();
        return new AdminHttp(http, executor, monitors);
    }

    /**
     * /health's body: the state the last probe found and its detail, since when, and the probe's
     * age; a result older than the probe's period allows is reported as "stale", whatever it said.
     */
    static JsonObject healthBody(ProbeResult last) {
        JsonObject body = new JsonObject();
        ServerStatusResponse s = last.status();
        if (s == null) {
            body.addProperty("health", "starting");
            body.addProperty("detail", "the node's health probe has not finished once yet");
        } else if (last.stale()) {
            body.addProperty("health", "stale");
            body.addProperty(
                    "detail",
                    "the node's health probe last finished " + last.ageMs() + " ms ago (more than " + last.ageMsMax()
                            + " ms), then found: " + s.getHealth());
        } else {
            body.addProperty("health", s.getHealth());
            body.addProperty("detail", s.getHealthDetail());
            body.addProperty("since_ms", s.getHealthSinceMs());
        }
        if (s != null) {
            body.addProperty("probe_age_ms", last.ageMs());
            body.addProperty("node_id", s.getNodeId());
            body.addProperty("leader_id", s.getLeaderId());
        }
        return body;
    }

    /**
     * Whether the exchange asks for exactly {@code path} with a method it serves; else answers it
     * 404 (another path under the context's prefix) or 405 naming the methods it does serve.
     */
    static boolean answersOnly(HttpExchange exchange, String path) throws IOException {
        if (!path.equals(exchange.getRequestURI().getPath())) {
            respond(exchange, 404, error(NO_SUCH_PATH));
            return false;
        }
        String method = exchange.getRequestMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            exchange.getResponseHeaders().set("Allow", ALLOWED_METHODS);
            respond(exchange, 405, error("method " + method + " is not served on " + path + ": " + ALLOWED_METHODS));
            return false;
        }
        return true;
    }

    static final String NO_SUCH_PATH = "no such path: the admin port serves /health, /status and /metrics";

    static String error(String message) {
        JsonObject body = new JsonObject();
        body.addProperty("error", message);
        return new Gson().toJson(body);
    }

    /** Answers 403 naming who was refused, unless {@code monitors} lets the exchange's client in. */
    static boolean permitted(HttpExchange exchange, Predicate<Optional<String>> monitors) throws IOException {
        Optional<String> principal = exchange instanceof HttpsExchange https
                ? PrincipalInterceptor.commonName(https.getSSLSession())
                : Optional.empty();
        if (monitors.test(principal)) {
            return true;
        }
        JsonObject body = new JsonObject();
        body.addProperty(
                "denied",
                principal.map(p -> "principal " + p).orElse("a client without a certificate") + " may not monitor");
        respond(exchange, 403, new Gson().toJson(body));
        return false;
    }

    private static HttpServer create(InetSocketAddress address, @Nullable HttpsConfigurator https) throws IOException {
        if (https == null) {
            return HttpServer.create(address, 16);
        }
        HttpsServer server = HttpsServer.create(address, 16);
        server.setHttpsConfigurator(https);
        return server;
    }

    static String json(com.google.protobuf.MessageOrBuilder status) {
        try {
            return JsonFormat.printer()
                    .preservingProtoFieldNames()
                    .includingDefaultValueFields()
                    .omittingInsignificantWhitespace()
                    .print(status);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    static void respond(HttpExchange exchange, int code, String body) throws IOException {
        respond(exchange, code, body + "\n", "application/json");
    }

    static void respond(HttpExchange exchange, int code, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        if ("HEAD".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(code, -1); // headers only, as HEAD asks
            exchange.close();
            return;
        }
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    public int port() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
