package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusRequest;
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
        // The logger gRPC's server transport writes "Stream Error" to (see TransportWarnings).
        Logger transport = Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler");
        List<LogRecord> written = new ArrayList<>();
        Handler counting = counting(written);
        transport.addHandler(counting);
        int streams = 200;
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
            assertThat(node.stub()
                            .serverStatus(ServerStatusRequest.getDefaultInstance())
                            .getHealth())
                    .isEqualTo("ok");
        } finally {
            transport.removeHandler(counting);
        }
        synchronized (counting) {
            assertThat(written)
                    .as("WARNING records written for " + streams + " bad streams")
                    .isNotEmpty()
                    .hasSizeLessThanOrEqualTo(2);
            assertThat(written.get(0).getMessage()).isEqualTo("Stream Error");
        }
    }

    /**
     * Requests whose gRPC framing does not hold make gRPC's deframer log WARNING "Exception
     * processing message" with a stack trace, about 4.3 KB each: a length prefix over the node's
     * message size (5 body bytes claiming 2 GiB), a message cut short by the end of its stream, and
     * a flag byte with reserved bits set. 300 of them, 100 of each, on one connection.
     */
    @Test
    void oversizedTruncatedAndMisframedRequestsCostTheLogOneRecordAndAreEachAnswered() throws Exception {
        Logger deframer = Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerStream");
        List<LogRecord> written = new ArrayList<>();
        Handler counting = counting(written);
        deframer.addHandler(counting);
        List<byte[]> bodies = List.of(
                new byte[] {0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}, // claims 2 GiB
                new byte[] {0, 0, 0, 0, 100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, // 10 bytes of 100, then the end
                new byte[] {0x02, 0, 0, 0, 1, 0}); // a reserved flag bit
        int streams = 300;
        try (RawConnection client = RawConnection.idle(node.server().port())) {
            client.send(CallFrames.calls(CallFrames.callHeaders("ServerStatus"), 1, streams, bodies));
            // Every request is answered: trailers that end its stream, or a reset.
            client.untilEnded(streams, 10_000);
            assertThat(node.stub()
                            .serverStatus(ServerStatusRequest.getDefaultInstance())
                            .getHealth())
                    .isEqualTo("ok");
        } finally {
            deframer.removeHandler(counting);
        }
        synchronized (counting) {
            assertThat(written)
                    .as("WARNING records written for " + streams + " badly framed requests")
                    .isNotEmpty()
                    .hasSizeLessThanOrEqualTo(2);
            assertThat(written.get(0).getMessage()).isEqualTo("Exception processing message");
        }
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
