package dev.tenure.server.admin;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.tenure.api.v1.ServerStatusResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The node's admin endpoint (HTTP, or HTTPS on a node with TLS; JSON): {@code /health} answers 200 when a command just
 * committed through the log and 503 otherwise; {@code /status} has the full node status;
 * {@code /metrics} has the node's metrics in Prometheus' text format (see {@link NodeMetrics}).
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

    private AdminHttp(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    public static AdminHttp start(
            String host, int port, Supplier<ServerStatusResponse> status, Supplier<String> metrics) throws IOException {
        return start(host, port, null, status, metrics);
    }

    /** As above; with {@code https} (not null), HTTPS only, configured by it. */
    public static AdminHttp start(
            String host,
            int port,
            HttpsConfigurator https,
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
        http.createContext("/health", exchange -> {
            ServerStatusResponse s = status.get();
            JsonObject body = new JsonObject();
            body.addProperty("health", s.getHealth());
            body.addProperty("detail", s.getHealthDetail());
            body.addProperty("since_ms", s.getHealthSinceMs());
            body.addProperty("node_id", s.getNodeId());
            body.addProperty("leader_id", s.getLeaderId());
            respond(exchange, "ok".equals(s.getHealth()) ? 200 : 503, new Gson().toJson(body));
        });
        http.createContext("/status", exchange -> respond(exchange, 200, json(status.get())));
        http.createContext(
                "/metrics",
                exchange -> respond(exchange, 200, metrics.get(), "text/plain; version=0.0.4; charset=utf-8"));
        http.start();
        return new AdminHttp(http, executor);
    }

    private static HttpServer create(InetSocketAddress address, HttpsConfigurator https) throws IOException {
        if (https == null) {
            return HttpServer.create(address, 16);
        }
        HttpsServer server = HttpsServer.create(address, 16);
        server.setHttpsConfigurator(https);
        return server;
    }

    private static String json(ServerStatusResponse status) {
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

    private static void respond(HttpExchange exchange, int code, String body) throws IOException {
        respond(exchange, code, body + "\n", "application/json");
    }

    private static void respond(HttpExchange exchange, int code, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
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
