package dev.tenure.server.admin;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tenure.api.v1.ServerStatusResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The node's admin endpoint (plain HTTP, JSON): {@code /health} answers 200 when a command just
 * committed through the log and 503 otherwise; {@code /status} has the full node status;
 * {@code /metrics} has the node's metrics in Prometheus' text format (see {@link NodeMetrics}).
 */
public final class AdminHttp implements AutoCloseable {

    private final HttpServer http;

    private AdminHttp(HttpServer http) {
        this.http = http;
    }

    public static AdminHttp start(
            String host, int port, Supplier<ServerStatusResponse> status, Supplier<String> metrics) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
        http.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tenure-admin");
            t.setDaemon(true);
            return t;
        }));
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
        return new AdminHttp(http);
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
    }
}
