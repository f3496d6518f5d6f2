package dev.tenure.bench.load;

import dev.tenure.client.TenureClient;
import dev.tenure.client.Watch;
import dev.tenure.client.WatchEvent;
import dev.tenure.client.WatchListener;
import dev.tenure.client.WatchRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * {@code --watchers} watches of one prefix, spread over a few connections of their own (a watch is
 * one stream; many share a connection, as many watches in one application process do). Each
 * event goes to {@code onEvent} with the time it arrived, on this JVM's monotonic clock.
 */
final class Watchers implements AutoCloseable {
    /** Watches per connection: an application process watches over one connection, not one each. */
    static final int WATCHES_PER_CONNECTION = 25;

    private static final long SYNC_TIMEOUT_SECONDS = 60;

    private final List<Watch> watches = new ArrayList<>();
    private final LongAdder events = new LongAdder();
    private final LongAdder ended = new LongAdder();

    /** A change a watch delivered, and when. */
    record Seen(WatchEvent event, long atNanos) {}

    /** Starts {@code n} watches of {@code prefix} and waits until each has its current state. */
    static Watchers start(
            Clients clients, LoadConfig config, String workload, int n, String prefix, Consumer<Seen> onEvent)
            throws InterruptedException {
        Watchers w = new Watchers();
        CountDownLatch synced = new CountDownLatch(n);
        List<TenureClient> connections = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (i % WATCHES_PER_CONNECTION == 0) {
                connections.add(clients.open(config, workload + "-watch-" + connections.size()));
            }
            TenureClient c = connections.get(connections.size() - 1);
            w.watches.add(c.watch(WatchRequest.prefix(prefix), new WatchListener() {
                @Override
                public void onEvent(WatchEvent event) {
                    long at = System.nanoTime();
                    if (!event.current()) {
                        w.events.increment();
                        onEvent.accept(new Seen(event, at));
                    }
                }

                @Override
                public void onSynced(long revision) {
                    synced.countDown();
                }

                @Override
                public void onEnded(dev.tenure.client.TenureException cause) {
                    w.ended.increment();
                }
            }));
        }
        if (n > 0 && !synced.await(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            w.close();
            throw new BenchFailedException(workload + ": " + synced.getCount() + " of " + n
                    + " watches did not start within " + SYNC_TIMEOUT_SECONDS + " s");
        }
        return w;
    }

    /** Events delivered to every watch together (current state not counted). */
    long events() {
        return events.sum();
    }

    /** Watches that ended for good (refused, or fell behind what the node keeps). */
    long ended() {
        return ended.sum();
    }

    @Override
    public void close() {
        watches.forEach(Watch::close);
        watches.clear();
    }
}
