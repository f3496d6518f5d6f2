package dev.tenure.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The frame checksum is CRC-32C, the function Aeron's archive and ArchiveTool call CRC-32C. */
class FrameChecksumTest {

    @Test
    void isCrc32cOverTheBytesAtTheAddress() {
        // The check value of CRC-32C (RFC 3720, B.4): "123456789" gives 0xE3069283.
        UnsafeBuffer check = direct("xx123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(FrameChecksum.CRC32C.compute(check.addressOffset(), 2, 9)).isEqualTo(0xE3069283);

        byte[] frame = new byte[64 * 1024];
        new Random(7).nextBytes(frame);
        UnsafeBuffer buffer = direct(frame);
        CRC32C expected = new CRC32C();
        expected.update(frame, 100, 40_000);
        assertThat(FrameChecksum.CRC32C.compute(buffer.addressOffset(), 100, 40_000))
                .isEqualTo((int) expected.getValue());
    }

    private static UnsafeBuffer direct(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
        buffer.put(bytes).flip();
        return new UnsafeBuffer(buffer);
    }
}
