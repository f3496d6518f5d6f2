package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An allocation that fails for want of memory reaches the node's hook; the others are the allocator's own. */
class OutOfMemoryAllocatorTest {
    @Test
    void aDirectBufferThatCannotBeReservedGoesToTheHookAndIsThrownOn() {
        List<OutOfMemoryError> heard = new ArrayList<>();
        OutOfMemoryAllocator allocator = new OutOfMemoryAllocator(
                new PooledByteBufAllocator(true) {
                    @Override
                    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                        throw new OutOfMemoryError("Cannot reserve 2097152 bytes of direct buffer memory");
                    }
                },
                heard::add);
        assertThatThrownBy(() -> allocator.ioBuffer(1024))
                .isInstanceOf(OutOfMemoryError.class)
                .hasMessageContaining("direct buffer memory");
        assertThat(heard).hasSize(1);
        ByteBuf heap = allocator.heapBuffer(16);
        heap.release();
        assertThat(heard).as("a buffer that could be had").hasSize(1);
    }
}
