package dev.tenure.server.gateway;

import static dev.tenure.server.InProcessServerTest.acquire;
import static dev.tenure.server.InProcessServerTest.put;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.Code;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.logging.LogCapture;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client can send stale writes as fast as it can send anything: the node's log gets at most one
 * line per interval for them (as for malformed requests), and no line carries a token.
 */
class StaleWriteLogTest {
    private static final LogCapture CAPTURED = LogCapture.of(GatewayServer.class);

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone();

    @AfterAll
    static void stopCapturing() {
        CAPTURED.close();
    }

    @Test
    void aFloodOfStaleWritesLogsOneLineWithoutTokens() throws Exception {
        SessionStream s = new SessionStream(node.channel());
        long session = s.open(10_000);
        long token = node.stub()
                .acquire(acquire(session, 1, "flooded", 0))
                .getGrant()
                .getToken();
        long staleToken = token + 1_000; // any token but the current one is stale
        int stale = 200;
        long started = System.nanoTime();
        for (int i = 0; i < stale; i++) {
            var r = node.stub().kvPut(put(session, 2 + i, "flood-key", "v", "flooded", staleToken));
            assertThat(r.getCode()).isEqualTo(Code.CODE_STALE_TOKEN);
        }
        long elapsedSeconds = (System.nanoTime() - started) / 1_000_000_000L;
        List<String> lines = CAPTURED.lines().stream()
                .filter(l -> l.startsWith("tenure: stale write rejected"))
                .toList();
        assertThat(lines)
                .first()
                .isEqualTo("tenure: stale write rejected: lock flooded kv:flood-key"
                        + " (its token is not the lock's current one)");
        // One line per throttling interval at most, however many writes: 200 without the throttle.
        assertThat(lines).hasSizeLessThanOrEqualTo(1 + (int) (elapsedSeconds / 10));
        assertThat(lines)
                .allSatisfy(l -> assertThat(l.replaceAll(" \\[\\d+ more since the previous line, not logged]$", ""))
                        .doesNotContain(Long.toString(token))
                        .doesNotContain(Long.toString(staleToken)));
    }
}
