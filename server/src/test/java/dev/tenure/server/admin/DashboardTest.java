package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.Holder;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.ListedLock;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.core.Change;
import dev.tenure.core.ElectionValue;
import dev.tenure.core.TenureEnd;
import dev.tenure.gateway.WatchHub;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's routes on a real admin server, over a source whose reads are fixed values: the
 * page and its files, the JSON of each read, a read the log does not answer (503), and the event
 * feed, resumed after the browser's last revision and reset when that revision is no longer kept.
 */
class DashboardTest {
    private static final ServerStatusResponse OK = ServerStatusResponse.newBuilder()
            .setHealth("ok")
            .setHealthSinceMs(1_700_000_000_000L)
            .setNodeId(0)
            .build();

    private final WatchHub hub = new WatchHub(4, 3, Runnable::run);
    private final AtomicReference<CompletableFuture<ListLocksResponse>> listing =
            new AtomicReference<>(CompletableFuture.completedFuture(ListLocksResponse.newBuilder()
                    .addLocks(ListedLock.newBuilder()
                            .setLock("orders/1")
                            .setWaiters(2)
                            .addHolders(Holder.newBuilder()
                                    .setSessionId(7)
                                    .setToken(42)
                                    .setPrincipal("worker")))
                    .setNowMs(5_000)
                    .build()));

    private AdminHttp start() throws Exception {
        AdminHttp admin = AdminHttp.start("127.0.0.1", 0, () -> new ProbeResult(OK, 10, 1_000), () -> OK, () -> "");
        admin.serveDashboard(new Dashboard.Source() {
            @Override
            public ProbeResult cluster() {
                return new ProbeResult(OK, 10, 1_000);
            }

            @Override
            public CompletableFuture<ListLocksResponse> locks(String prefix, String after) {
                return listing.get();
            }

            @Override
            public CompletableFuture<LockStatusResponse> lock(String name) {
                return CompletableFuture.completedFuture(LockStatusResponse.newBuilder()
                        .setLock(name)
                        .setPermits(3)
                        .build());
            }

            @Override
            public WatchHub feed() {
                return hub;
            }
        });
        return admin;
    }

    @Test
    void servesThePageItsFilesAndTheReadsAsJson() throws Exception {
        try (AdminHttp admin = start()) {
            HttpResponse<String> page = get(admin, "/", null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(page.body()).contains("<script src=\"/dashboard.js\"></script>");
            assertThat(get(admin, "/dashboard.js", null).body()).contains("new EventSource('/api/events')");
            assertThat(get(admin, "/dashboard.css", null).statusCode()).isEqualTo(200);
            assertThat(get(admin, "/index.html", null).statusCode()).isEqualTo(404);
            assertThat(get(admin, "/api/locks?prefix=orders%2F", null).body())
                    .isEqualTo("{\"code\":\"CODE_UNSPECIFIED\",\"message\":\"\",\"locks\":[{\"lock\":\"orders/1\","
                            + "\"waiters\":2,\"delay_until_ms\":\"0\",\"holders\":[{\"session_id\":\"7\",\"token\":\"42\","
                            + "\"since_ms\":\"0\",\"client_name\":\"\",\"ends_at_ms\":\"0\",\"principal\":\"worker\","
                            + "\"shared\":false,\"value\":\"\"}]}],\"more\":false,\"now_ms\":\"5000\"}\n");
            assertThat(get(admin, "/api/lock?name=a%20b", null).body()).contains("\"lock\":\"a b\"", "\"permits\":3");
            assertThat(get(admin, "/api/lock", null).statusCode()).isEqualTo(400);
            assertThat(get(admin, "/api/cluster", null).body())
                    .startsWith("{\"stale\":false,\"probe_age_ms\":10,\"status\":{\"node_id\":0,");
        }
    }

    @Test
    void aReadTheLogDoesNotAnswerIs503() throws Exception {
        try (AdminHttp admin = start()) {
            listing.set(CompletableFuture.failedFuture(new IllegalStateException("no leader")));
            HttpResponse<String> r = get(admin, "/api/locks", null);
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("the log did not answer this read", "no leader");
        }
    }

    @Test
    void theFeedResumesAfterTheLastRevisionAndResetsWhenItIsNoLongerKept() throws Exception {
        hub.reset(0);
        hub.applied(List.of(granted(1, 11), granted(2, 12)));
        try (AdminHttp admin = start()) {
            // Resumed after revision 1: revision 2 only, with its revision as the event id.
            String resumed = get(admin, "/api/events", "1").body();
            assertThat(resumed)
                    .startsWith("retry: 100\n\nid: 2\nevent: change\ndata: {\"revision\":2,\"kind\":\"GRANTED\","
                            + "\"name\":\"orders/1\",\"session_id\":7,\"token\":12,\"end\":\"RELEASED\"");
            assertThat(resumed).doesNotContain("id: 1\n");
            // Three are kept: after four more, revision 1 is gone and the page must list again.
            hub.applied(List.of(granted(3, 13), granted(4, 14), granted(5, 15), granted(6, 16)));
            assertThat(get(admin, "/api/events", "1").body()).contains("event: reset\ndata: \"COMPACTED: revision 1");
        }
    }

    private static Change granted(long revision, long token) {
        return new Change(
                revision,
                Change.Kind.GRANTED,
                "orders/1",
                7,
                token,
                TenureEnd.RELEASED,
                token - 1,
                false,
                1,
                0,
                1_000,
                ElectionValue.NONE);
    }

    private static HttpResponse<String> get(AdminHttp admin, String path, String lastEventId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
                .timeout(Duration.ofSeconds(20));
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        return r;
    }
}
