package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusRequest;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.ChannelOutboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.embedded.EmbeddedChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
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
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone();

    @Test
    void aClientBreakingHttp2OnEveryStreamCostsTheLogOneRecordAndIsServedNoHarm() throws Exception {
        // The logger gRPC's server transport writes "Stream Error" to (see TransportWarnings).
        Logger transport = Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler");
        List<LogRecord> written = new ArrayList<>();
        Handler counting = new Handler() {
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
        transport.addHandler(counting);
        int streams = 200;
        try (RawConnection client = RawConnection.idle(node.server().port())) {
            client.send(badStreams(streams));
            // The node resets every bad stream, after it logged it.
            int resets = 0;
            while (resets < streams) {
                RawConnection.Frame frame = client.next(10_000);
                assertThat(frame).as("a frame after " + resets + " resets").isNotNull();
                resets += frame.type() == RST_STREAM ? 1 : 0;
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
            client.send(badRequests(streams, bodies));
            // Every request is answered: trailers that end its stream, or a reset.
            java.util.Set<Integer> ended = new java.util.HashSet<>();
            while (ended.size() < streams) {
                RawConnection.Frame frame = client.next(10_000);
                assertThat(frame)
                        .as("a frame after " + ended.size() + " requests ended")
                        .isNotNull();
                boolean endsStream =
                        frame.type() == RST_STREAM || (frame.type() == HEADERS && (frame.flags() & 1) != 0);
                if (endsStream && frame.streamId() != 0) {
                    ended.add(frame.streamId());
                }
            }
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

    /** {@code n} unary calls, each a HEADERS frame and one DATA frame that ends it: the bodies in turn. */
    private static byte[] badRequests(int n, List<byte[]> bodies) throws Exception {
        EmbeddedChannel capture = new EmbeddedChannel(new ChannelOutboundHandlerAdapter());
        DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
        for (int i = 0; i < n; i++) {
            Http2Headers headers = new DefaultHttp2Headers(true)
                    .method("POST")
                    .scheme("http")
                    .path("/tenure.v1.Tenure/ServerStatus")
                    .authority("127.0.0.1")
                    .set("content-type", "application/grpc")
                    .set("te", "trailers");
            int stream = 1 + 2 * i;
            writer.writeHeaders(capture.pipeline().firstContext(), stream, headers, 0, false, capture.newPromise());
            writer.writeData(
                    capture.pipeline().firstContext(),
                    stream,
                    Unpooled.wrappedBuffer(bodies.get(i % bodies.size())),
                    0,
                    true,
                    capture.newPromise());
        }
        return captured(capture);
    }

    private static byte[] captured(EmbeddedChannel capture) throws Exception {
        capture.flush();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (ByteBuf b = capture.readOutbound(); b != null; b = capture.readOutbound()) {
            byte[] chunk = new byte[b.readableBytes()];
            b.readBytes(chunk);
            b.release();
            bytes.write(chunk);
        }
        capture.finishAndReleaseAll();
        return bytes.toByteArray();
    }

    /**
     * HEADERS frames for {@code n} new streams, each with a header name in capitals, which HTTP/2
     * forbids: a stream error each, the connection itself unharmed.
     */
    private static byte[] badStreams(int n) throws Exception {
        EmbeddedChannel capture = new EmbeddedChannel(new ChannelOutboundHandlerAdapter());
        DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
        for (int i = 0; i < n; i++) {
            Http2Headers headers = new DefaultHttp2Headers(false)
                    .method("POST")
                    .scheme("http")
                    .path("/tenure.v1.Tenure/ServerStatus")
                    .authority("127.0.0.1")
                    .set("content-type", "application/grpc")
                    .set("X-Not-Lower-Case", "1");
            writer.writeHeaders(capture.pipeline().firstContext(), 1 + 2 * i, headers, 0, false, capture.newPromise());
        }
        capture.flush();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (ByteBuf b = capture.readOutbound(); b != null; b = capture.readOutbound()) {
            byte[] chunk = new byte[b.readableBytes()];
            b.readBytes(chunk);
            b.release();
            bytes.write(chunk);
        }
        capture.finishAndReleaseAll();
        return bytes.toByteArray();
    }
}
