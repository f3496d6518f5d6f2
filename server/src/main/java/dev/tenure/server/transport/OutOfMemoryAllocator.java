package dev.tenure.server.transport;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.CompositeByteBuf;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The buffer allocator of the node's client connections: gRPC's own, with every allocation that
 * fails for want of memory handed to the node's out-of-memory hook, which ends it (138) as running
 * out of heap does.
 *
 * <p>Netty reserves its direct buffers with the JDK, up to {@code -XX:MaxDirectMemorySize} (by
 * default as much as {@code -Xmx}); past it the JDK throws {@code OutOfMemoryError: Cannot
 * reserve N bytes of direct buffer memory} from Java code, which the JVM's out-of-memory hook
 * never hears of. Netty catches it in its event loop, resets the connection's streams (a client
 * reads {@code INTERNAL: Received RST_STREAM with code 2}) and goes on; a node in that state
 * fails every call that needs a buffer while its log, and so {@code /health}, look fine.
 */
final class OutOfMemoryAllocator implements ByteBufAllocator {
    private final ByteBufAllocator allocator;
    private final Consumer<OutOfMemoryError> outOfMemory;

    OutOfMemoryAllocator(ByteBufAllocator allocator, Consumer<OutOfMemoryError> outOfMemory) {
        this.allocator = allocator;
        this.outOfMemory = outOfMemory;
    }

    private <T> T watched(Supplier<T> allocation) {
        try {
            return allocation.get();
        } catch (OutOfMemoryError e) {
            outOfMemory.accept(e);
            throw e;
        }
    }

    @Override
    public ByteBuf buffer() {
        return watched(allocator::buffer);
    }

    @Override
    public ByteBuf buffer(int initialCapacity) {
        return watched(() -> allocator.buffer(initialCapacity));
    }

    @Override
    public ByteBuf buffer(int initialCapacity, int maxCapacity) {
        return watched(() -> allocator.buffer(initialCapacity, maxCapacity));
    }

    @Override
    public ByteBuf ioBuffer() {
        return watched(allocator::ioBuffer);
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity) {
        return watched(() -> allocator.ioBuffer(initialCapacity));
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
        return watched(() -> allocator.ioBuffer(initialCapacity, maxCapacity));
    }

    @Override
    public ByteBuf heapBuffer() {
        return watched(allocator::heapBuffer);
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity) {
        return watched(() -> allocator.heapBuffer(initialCapacity));
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
        return watched(() -> allocator.heapBuffer(initialCapacity, maxCapacity));
    }

    @Override
    public ByteBuf directBuffer() {
        return watched(allocator::directBuffer);
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity) {
        return watched(() -> allocator.directBuffer(initialCapacity));
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
        return watched(() -> allocator.directBuffer(initialCapacity, maxCapacity));
    }

    @Override
    public CompositeByteBuf compositeBuffer() {
        return watched(allocator::compositeBuffer);
    }

    @Override
    public CompositeByteBuf compositeBuffer(int maxNumComponents) {
        return watched(() -> allocator.compositeBuffer(maxNumComponents));
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer() {
        return watched(allocator::compositeHeapBuffer);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
        return watched(() -> allocator.compositeHeapBuffer(maxNumComponents));
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer() {
        return watched(allocator::compositeDirectBuffer);
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
        return watched(() -> allocator.compositeDirectBuffer(maxNumComponents));
    }

    @Override
    public boolean isDirectBufferPooled() {
        return allocator.isDirectBufferPooled();
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
        return allocator.calculateNewCapacity(minNewCapacity, maxCapacity);
    }
}
