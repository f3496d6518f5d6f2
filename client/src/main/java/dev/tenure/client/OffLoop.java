package dev.tenure.client;

import dev.tenure.client.spi.TimeSource;
import io.grpc.netty.shaded.io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps the application's code off the transport's event loops. The client's channels deliver
 * answers on the event loop that reads them (no hand-off to another thread: see BENCHMARKS.md,
 * 'Answers on the event loop'), so a future completed there would run its dependents there too: an
 * application's callback that blocks, or makes a synchronous call whose answer that same loop must
 * read, would stall every connection on the loop. What the application can attach code to (the
 * futures the API returns, listener calls, lost() and invalidated()) is therefore completed through
 * here: at once on any other thread (a caller blocked in a synchronous call is woken directly), and
 * handed to the client's workers on an event loop.
 */
final class OffLoop {
    private OffLoop() {}

    /** True on a thread that runs one of the transport's event loops. */
    static boolean onEventLoop() {
        return ThreadExecutorMap.currentExecutor() != null;
    }

    /** Runs {@code task} now, or on one of {@code time}'s workers when called on an event loop. */
    static void run(TimeSource time, Runnable task) {
        if (onEventLoop()) {
            time.execute(task);
        } else {
            task.run();
        }
    }

    /**
     * A future that completes as {@code inner} does, but off the event loops (see {@link
     * #run}). With {@code cancelsInner}, cancelling it cancels {@code inner}: for the futures of
     * calls, whose cancel withdraws the call; without, for views of a state (lost()), which one
     * caller's cancel must not change for the others.
     */
    static <T> CompletableFuture<T> view(TimeSource time, CompletableFuture<T> inner, boolean cancelsInner) {
        CompletableFuture<T> view = new CompletableFuture<>();
        CompletableFuture<?> unused = inner.whenComplete((value, error) -> run(time, () -> {
            if (error == null) {
                view.complete(value);
            } else {
                view.completeExceptionally(error);
            }
        }));
        if (cancelsInner) {
            unused = view.whenComplete((value, error) -> {
                if (view.isCancelled()) {
                    inner.cancel(false);
                }
            });
        }
        return view;
    }
}
