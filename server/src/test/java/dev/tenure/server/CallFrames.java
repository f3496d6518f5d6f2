package dev.tenure.server;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelOutboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.embedded.EmbeddedChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * HTTP/2 frames of gRPC calls as bytes, for a {@link RawConnection} to send: so a test can send
 * calls no gRPC client would (headers and never a request, a request whose framing does not hold).
 */
public final class CallFrames {
    private CallFrames() {}

    /** The headers of a gRPC call to {@code tenure.v1.Tenure/<method>}, as a client sends them. */
    public static Http2Headers callHeaders(String method) {
        return new DefaultHttp2Headers(true)
                .method("POST")
                .scheme("http")
                .path("/tenure.v1.Tenure/" + method)
                .authority("127.0.0.1")
                .set("content-type", "application/grpc")
                .set("te", "trailers");
    }

    /**
     * {@code n} calls on the client's streams from {@code firstStream} on, each a HEADERS frame of
     * {@code headers} and then a DATA frame that ends the stream, the {@code bodies} in turn; with
     * no bodies, the HEADERS alone and the stream left open.
     */
    public static byte[] calls(Http2Headers headers, int firstStream, int n, List<byte[]> bodies) throws Exception {
        EmbeddedChannel capture = new EmbeddedChannel(new ChannelOutboundHandlerAdapter());
        DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
        ChannelHandlerContext context = capture.pipeline().firstContext();
        for (int i = 0; i < n; i++) {
            int stream = firstStream + 2 * i;
            // The channel only captures what is written, at once: the bytes are read from it below.
            var unusedHeaders = writer.writeHeaders(context, stream, headers, 0, false, capture.newPromise());
            if (!bodies.isEmpty()) {
                ByteBuf body = Unpooled.wrappedBuffer(bodies.get(i % bodies.size()));
                var unusedData = writer.writeData(context, stream, body, 0, true, capture.newPromise());
            }
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
