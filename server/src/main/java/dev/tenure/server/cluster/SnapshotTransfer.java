package dev.tenure.server.cluster;

import dev.tenure.server.storage.ServiceSnapshotLayout;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.logbuffer.FragmentHandler;
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

    /**
     * The snapshot's bytes, read into one array of the length its header gives: a snapshot can be
     * most of the heap, and a growing buffer would need up to twice that while it grows and a
     * third copy at the end, on top of the state restored from it.
     */
    static byte[] read(Image image, IdleStrategy idle) {
        byte[][] out = {null};
        int[] filled = {0};
        FragmentHandler handler = (buffer, offset, length, header) -> {
            if (out[0] == null) {
                if (length != HEADER_BYTES || buffer.getInt(offset) != HEADER_MAGIC || buffer.getInt(offset + 4) < 0) {
                    throw new IllegalStateException("not a Tenure snapshot");
                }
                out[0] = new byte[buffer.getInt(offset + 4)];
                return;
            }
            if (filled[0] + length > out[0].length) {
                throw new IllegalStateException("snapshot longer than its header's " + out[0].length + " bytes");
            }
            buffer.getBytes(offset, out[0], filled[0], length);
            filled[0] += length;
        };
        idle.reset();
        while (out[0] == null || filled[0] < out[0].length) {
            if (image.isEndOfStream() || image.isClosed()) {
                throw new IllegalStateException("snapshot ended after " + filled[0] + " bytes");
            }
            if (image.poll(handler, 16) == 0) {
                idle.idle();
            } else {
                idle.reset();
            }
        }
        return out[0];
    }
}
