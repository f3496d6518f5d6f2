package dev.tenure.server.cluster;

import dev.tenure.server.integrity.ServiceSnapshotLayout;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.logbuffer.FragmentHandler;
import java.io.ByteArrayOutputStream;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Moves the state machine's snapshot bytes through an Aeron snapshot publication: a header
 * fragment with the total length, then chunks small enough for any term length.
 */
final class SnapshotTransfer {

    private static final int CHUNK_BYTES = ServiceSnapshotLayout.CHUNK_BYTES;
    private static final int HEADER_MAGIC = ServiceSnapshotLayout.HEADER_MAGIC;
    private static final int HEADER_BYTES = ServiceSnapshotLayout.HEADER_BYTES;

    private SnapshotTransfer() {}

    static void write(ExclusivePublication publication, byte[] snapshot, IdleStrategy idle) {
        UnsafeBuffer header = new UnsafeBuffer(new byte[HEADER_BYTES]);
        header.putInt(0, HEADER_MAGIC);
        header.putInt(4, snapshot.length);
        offer(publication, header, 0, HEADER_BYTES, idle);
        UnsafeBuffer body = new UnsafeBuffer(snapshot);
        for (int offset = 0; offset < snapshot.length; offset += CHUNK_BYTES) {
            offer(publication, body, offset, Math.min(CHUNK_BYTES, snapshot.length - offset), idle);
        }
    }

    private static void offer(
            ExclusivePublication publication, UnsafeBuffer buffer, int offset, int length, IdleStrategy idle) {
        idle.reset();
        while (true) {
            long result = publication.offer(buffer, offset, length);
            if (result > 0) {
                return;
            }
            if (result == ExclusivePublication.CLOSED || result == ExclusivePublication.MAX_POSITION_EXCEEDED) {
                throw new IllegalStateException("snapshot publication refused: " + result);
            }
            idle.idle();
        }
    }

    static byte[] read(Image image, IdleStrategy idle) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int[] expected = {-1};
        FragmentHandler handler = (buffer, offset, length, header) -> {
            if (expected[0] < 0) {
                if (length != HEADER_BYTES || buffer.getInt(offset) != HEADER_MAGIC) {
                    throw new IllegalStateException("not a Tenure snapshot");
                }
                expected[0] = buffer.getInt(offset + 4);
                return;
            }
            byte[] chunk = new byte[length];
            buffer.getBytes(offset, chunk);
            out.write(chunk, 0, length);
        };
        idle.reset();
        while (expected[0] < 0 || out.size() < expected[0]) {
            if (image.isEndOfStream() || image.isClosed()) {
                throw new IllegalStateException("snapshot ended after " + out.size() + " bytes");
            }
            if (image.poll(handler, 16) == 0) {
                idle.idle();
            } else {
                idle.reset();
            }
        }
        return out.toByteArray();
    }
}
