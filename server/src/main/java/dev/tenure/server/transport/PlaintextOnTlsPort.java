package dev.tenure.server.transport;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.grpc.Status;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.ByteBufUtil;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.handler.codec.ByteToMessageDecoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameAdapter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Settings;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * On a port that serves TLS only, answers a client that speaks plaintext HTTP/2 (a gRPC client
 * without TLS) in its own language: its first call ends UNAUTHENTICATED with {@link #MESSAGE},
 * then the connection is closed. Without it the TLS engine closes the connection without a word
 * the client can read, and a gRPC client retries until its deadline and reports only that the
 * network closed.
 *
 * <p>It reads the first bytes of a connection: TLS (a handshake record) and anything that is not
 * the HTTP/2 preface are handed on untouched, and it leaves the pipeline. After a preface it
 * reads HTTP/2 frames with Netty's codec until the first request's headers, never a message: it
 * answers that request with a gRPC status in trailers only, then a GOAWAY, and closes. A client
 * that sends no request within {@link #ANSWER_WITHIN_SECONDS} is closed too.
 */
final class PlaintextOnTlsPort extends ByteToMessageDecoder {
    /** What the client's call ends with (the client's HandshakeFailures matches its middle). */
    static final String MESSAGE = "tenure: this port speaks TLS only: connect with TLS (trust the node's CA: --tls-ca)";

    static final int ANSWER_WITHIN_SECONDS = 10;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(US_ASCII);
    /** What SslHandler needs to tell a TLS record from other bytes. */
    private static final int RECORD_HEADER = 5;

    /** Made only for a plaintext client: every TLS connection passes through here first. */
    private @Nullable DefaultHttp2FrameReader frames;

    // Made with frames, before frames first reads: FirstRequest, its only reader, runs from that read.
    @SuppressWarnings("NullAway.Init")
    private DefaultHttp2FrameWriter writer;

    private boolean answered;

    // Netty's writes and closes return futures that nothing here waits on: the handler only
    // answers and closes, and the connection's own close reports what fails.
    @SuppressWarnings("FutureReturnValueIgnored")
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (frames == null) {
            if (in.readableBytes() < RECORD_HEADER) {
                return;
            }
            if (SslHandler.isEncrypted(in, false) || !prefaceSoFar(in)) {
                ctx.pipeline().remove(this); // hands on what it holds
                return;
            }
            if (in.readableBytes() < PREFACE.length) {
                return;
            }
            in.skipBytes(PREFACE.length);
            frames = new DefaultHttp2FrameReader();
            writer = new DefaultHttp2FrameWriter();
            writer.writeSettings(ctx, new Http2Settings(), ctx.newPromise());
            ctx.flush();
            ctx.executor().schedule(() -> ctx.close(), ANSWER_WITHIN_SECONDS, TimeUnit.SECONDS);
        }
        if (answered) {
            in.skipBytes(in.readableBytes()); // whatever the client sent before the close
            return;
        }
        try {
            frames.readFrame(ctx, in, new FirstRequest());
        } catch (Http2Exception notHttp2) {
            in.skipBytes(in.readableBytes());
            ctx.close();
        }
    }

    private static boolean prefaceSoFar(ByteBuf in) {
        int n = Math.min(in.readableBytes(), PREFACE.length);
        return ByteBufUtil.equals(in, in.readerIndex(), Unpooled.wrappedBuffer(PREFACE), 0, n);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (frames != null) {
            frames.close();
        }
    }

    /** Acknowledges the client's settings, as HTTP/2 requires, and answers its first request. */
    private final class FirstRequest extends Http2FrameAdapter {
        @SuppressWarnings("FutureReturnValueIgnored") // as in decode()
        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
            writer.writeSettingsAck(ctx, ctx.newPromise());
            ctx.flush();
        }

        @Override
        public void onHeadersRead(
                ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            answer(ctx, streamId);
        }

        @Override
        public void onHeadersRead(
                ChannelHandlerContext ctx,
                int streamId,
                Http2Headers headers,
                int streamDependency,
                short weight,
                boolean exclusive,
                int padding,
                boolean endOfStream) {
            answer(ctx, streamId);
        }

        /**
         * A gRPC answer in trailers only, then a GOAWAY naming that request as the last one served
         * (a client retries later ones elsewhere, or not at all once this one has failed), then
         * the close: written from here, towards the socket, past none of the TLS handlers.
         */
        @SuppressWarnings("FutureReturnValueIgnored") // as in decode()
        private void answer(ChannelHandlerContext ctx, int streamId) {
            if (answered) {
                return;
            }
            answered = true;
            Http2Headers trailers = new DefaultHttp2Headers()
                    .status("200")
                    .set("content-type", "application/grpc")
                    .setInt("grpc-status", Status.Code.UNAUTHENTICATED.value())
                    // Printable ASCII without '%': gRPC's percent-encoding leaves it as it is.
                    .set("grpc-message", MESSAGE);
            writer.writeHeaders(ctx, streamId, trailers, 0, true, ctx.newPromise());
            writer.writeGoAway(
                            ctx,
                            streamId,
                            Http2Error.INADEQUATE_SECURITY.code(),
                            Unpooled.copiedBuffer(MESSAGE, UTF_8),
                            ctx.newPromise())
                    .addListener(written -> ctx.close());
            ctx.flush();
        }
    }
}
