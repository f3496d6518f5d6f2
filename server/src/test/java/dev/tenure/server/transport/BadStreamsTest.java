package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.server.CallFrames;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.RawConnection;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client that breaks HTTP/2 on stream after stream makes gRPC's transport log one WARNING with a
 * stack trace for each; on a node, one such record per interval is written, and it says how many
 * were left out.
 */
class BadStreamsTest {
    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone();

    @Test
    void aClientBreakingHttp2OnEveryStreamCostsTheLogOneRecordAndIsServedNoHarm() throws Exception {
        int streams = 200;
        // The logger gRPC's server transport writes "Stream Error" to (see TransportWarnings).
        List<LogRecord> written = warningsWhile("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler", () -> {
            try (RawConnection client = RawConnection.idle(node.server().port())) {
                client.send(badStreams(streams));
                // The node resets every bad stream, after it logged it.
                int resets = 0;
                while (resets < streams) {
                    RawConnection.Frame frame = client.next(10_000);
                    assertThat(frame).as("a frame after " + resets + " resets").isNotNull();
                    resets += frame.type() == RawConnection.RST_STREAM ? 1 : 0;
                }
                // A call on another connection: the node went on serving.
                assertServing();
            }
        });
        assertOneOrTwo(written, "WARNING records written for " + streams + " bad streams", "Stream Error");
    }

    /**
     * Requests whose gRPC framing does not hold make gRPC's deframer log WARNING "Exception
     * processing message" with a stack trace, about 4.3 KB each: a length prefix over the node's
     * message size (5 body bytes claiming 2 GiB), a message cut short by the end of its stream, and
     * a flag byte with reserved bits set. 300 of them, 100 of each, on one connection.
     */
    @Test
    void oversizedTruncatedAndMisframedRequestsCostTheLogOneRecordAndAreEachAnswered() throws Exception {
        List<byte[]> bodies = List.of(
                new byte[] {0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}, // claims 2 GiB
                new byte[] {0, 0, 0, 0, 100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, // 10 bytes of 100, then the end
                new byte[] {0x02, 0, 0, 0, 1, 0}); // a reserved flag bit
        int streams = 300;
        List<LogRecord> written = warningsWhile("io.grpc.netty.shaded.io.grpc.netty.NettyServerStream", () -> {
            try (RawConnection client = RawConnection.idle(node.server().port())) {
                client.send(CallFrames.calls(CallFrames.callHeaders("ServerStatus"), 1, streams, bodies));
                // Every request is answered: trailers that end its stream, or a reset.
                client.untilEnded(streams, 10_000);
                assertServing();
            }
        });
        assertOneOrTwo(
                written,
                "WARNING records written for " + streams + " badly framed requests",
                "Exception processing message");
    }

    private static void assertServing() {
        assertThat(node.stub()
                        .serverStatus(ServerStatusRequest.getDefaultInstance())
                        .getHealth())
                .isEqualTo("ok");
    }

    /** Records written: at least one, at most two (one an interval), the first saying {@code message}. */
    private static void assertOneOrTwo(List<LogRecord> written, String what, String message) {
        assertThat(written).as(what).isNotEmpty().hasSizeLessThanOrEqualTo(2);
        assertThat(written.get(0).getMessage()).isEqualTo(message);
    }

    /** The records at WARNING or above that the logger named {@code logger} was given while {@code sending} ran. */
    private static List<LogRecord> warningsWhile(String logger, Sending sending) throws Exception {
        Logger to = Logger.getLogger(logger);
        List<LogRecord> written = new ArrayList<>();
        Handler counting = counting(written);
        to.addHandler(counting);
        try {
            sending.run();
        } finally {
            to.removeHandler(counting);
        }
        synchronized (counting) {
            return List.copyOf(written);
        }
    }

    private interface Sending {
        void run() throws Exception;
    }

    /** A handler that keeps every record at WARNING or above that reaches it. */
    private static Handler counting(List<LogRecord> written) {
        return new Handler() {
            @Override
            public synchronized void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    written.add(record);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
    }

    /**
     * HEADERS frames for {@code n} new streams, each with a header name in capitals, which HTTP/2
     * forbids: a stream error each, the connection itself unharmed.
     */
    private static byte[] badStreams(int n) throws Exception {
        Http2Headers headers = new DefaultHttp2Headers(false)
                .method("POST")
                .scheme("http")
                .path("/tenure.v1.Tenure/ServerStatus")
                .authority("127.0.0.1")
                .set("content-type", "application/grpc")
                .set("X-Not-Lower-Case", "1");
        return CallFrames.calls(headers, 1, n, List.of());
    }
}
