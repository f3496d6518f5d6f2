package dev.tenure.lab.worker;

import dev.tenure.lab.naive.NaiveLockClient;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The common TTL lock as applications use it: SETNX with a random value and an expiry, a
 * watchdog thread that extends it every third of the TTL and only logs when that fails, an
 * optional "do I still hold it?" GET before a write, and an unlock that is a plain DEL, retried on
 * timeout. It passes no token to storage: there is none.
 */
final class NaiveHolder implements Holder {
    private static final long POLL_MS = 50;

    private final WorkerOptions o;
    private final Emitter ev;
    private final NaiveLockClient client;
    private final String value = UUID.randomUUID().toString().substring(0, 8);
    private long generation;
    private @Nullable Thread watchdog; // started by the first acquire

    NaiveHolder(WorkerOptions o, Emitter ev) {
        this.o = o;
        this.ev = ev;
        this.client = new NaiveLockClient(o.lockEndpoints, Duration.ofMillis(o.requestTimeoutMs));
    }

    @Override
    public long acquire() throws InterruptedException {
        long id = ev.nextId();
        ev.emit(id, "invoke", "acquire", "lock", o.lock);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.acquireWaitMs);
        while (System.nanoTime() < deadline) {
            try {
                String reply = client.call("SETNX " + o.lock + " " + value + " " + o.ttlMs);
                if (reply.startsWith("OK ")) {
                    generation = Long.parseLong(reply.substring(3).trim());
                    ev.emit(id, "ok", "acquire", "lock", o.lock, "token", generation);
                    startWatchdog();
                    return generation;
                }
            } catch (IOException e) {
                // not reachable now: keep trying, maybe on the next endpoint
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
        ev.emit(id, "fail", "acquire", "lock", o.lock, "detail", "not acquired within " + o.acquireWaitMs + " ms");
        return 0;
    }

    private void startWatchdog() {
        watchdog = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            TimeUnit.MILLISECONDS.sleep(Math.max(1, o.ttlMs / 3));
                            String reply = client.call("EXTEND " + o.lock + " " + value + " " + o.ttlMs);
                            if (!reply.equals("OK")) {
                                ev.info("renew", "extend refused: " + reply);
                            }
                        } catch (IOException e) {
                            ev.info("renew", "extend failed: " + e.getMessage()); // logged, as watchdogs do
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "naive-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    @Override
    public long check() {
        if (!o.checkEachWrite) {
            return generation; // the watchdog keeps it, the application assumes
        }
        try {
            String reply = client.call("GET " + o.lock);
            if (reply.equals("VAL " + value)) {
                return generation;
            }
            ev.info("lost", "GET says the lock is not ours: " + reply);
        } catch (IOException e) {
            ev.info("lost", "GET failed: " + e.getMessage());
        }
        return 0;
    }

    @Override
    public void release() throws InterruptedException {
        if (watchdog != null) {
            watchdog.interrupt();
        }
        long id = ev.nextId();
        ev.emit(id, "invoke", "release", "lock", o.lock, "token", generation);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.releaseRetryMs);
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                String reply = client.call("DEL " + o.lock);
                ev.emit(
                        id,
                        "ok",
                        "release",
                        "lock",
                        o.lock,
                        "token",
                        generation,
                        "detail",
                        reply + " after " + attempts + " attempt(s)");
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    ev.emit(
                            id,
                            "fail",
                            "release",
                            "lock",
                            o.lock,
                            "token",
                            generation,
                            "detail",
                            "no answer after " + attempts + " attempt(s): " + e.getMessage());
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(POLL_MS); // the reply was lost: send DEL again
            }
        }
    }

    @Override
    public void close() {
        if (watchdog != null) {
            watchdog.interrupt();
        }
        client.close();
    }
}
