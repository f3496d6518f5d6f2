package dev.tenure.server.storage;

import io.aeron.archive.checksum.Checksum;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * CRC-32C of a frame's payload, the function Aeron's archive names {@code CRC-32C}: the archive
 * stores it in each frame it records and checks it in each replay, and {@link RecordingWalk}
 * checks it at start. Aeron's own ({@code Checksums.crc32c()}) reaches into {@code java.util.zip}
 * by reflection, which a JVM without {@code --add-opens java.base/java.util.zip} refuses; this one
 * copies the payload (at most a frame, an MTU) and runs the JDK's intrinsic on the copy.
 */
public final class FrameChecksum implements Checksum {

    public static final FrameChecksum CRC32C = new FrameChecksum();

    /** One per thread: the archive checks on its own thread, a start check on the main one. */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private FrameChecksum() {}

    @Override
    public int compute(long address, int offset, int length) {
        Scratch s = SCRATCH.get();
        if (s.bytes.length < length) {
            s.bytes = new byte[Math.max(length, s.bytes.length * 2)];
        }
        s.view.wrap(address + offset, length);
        s.view.getBytes(0, s.bytes, 0, length);
        s.crc.reset();
        s.crc.update(s.bytes, 0, length);
        return (int) s.crc.getValue();
    }

    private static final class Scratch {
        final CRC32C crc = new CRC32C();
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        byte[] bytes = new byte[4096];
    }
}
