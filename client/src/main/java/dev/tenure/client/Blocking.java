package dev.tenure.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The synchronous API's one way of waiting for an asynchronous result. */
final class Blocking {
    private Blocking() {}

    /**
     * Waits for {@code future}. An interrupt cancels it (for an acquire, that withdraws the wait
     * on the server) and surfaces as a TenureException with the interrupt flag restored.
     */
    static <T> T join(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new TenureException(TenureException.Code.OTHER, "interrupted while waiting", e);
        } catch (ExecutionException e) {
            throw unchecked(e.getCause() != null ? e.getCause() : e);
        }
    }

    static RuntimeException unchecked(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new TenureException(TenureException.Code.OTHER, String.valueOf(t), t);
    }
}
