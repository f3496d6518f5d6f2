package dev.tenure.lab.worker;

import dev.tenure.lab.store.StoreClient;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A worker process of the lab: acquires the lock (naive or Tenure), runs one critical section of
 * numbered writes to the lab's resource, releases, and exits. Every operation is reported as an
 * event on stdout; named points ({@code --pause-before-acquire}, {@code --pause-after-acquire},
 * {@code --pause-before-write K}, {@code --pause-before-release}) wait for the lab, which injects its fault there.
 * With {@code --until-go} the critical section lasts until the lab says go (a holder that must
 * outlast faults whose length the lab does not know in advance).
 *
 * <p>A write whose token the store refuses ends the critical section: a refused holder stops.
 * A write whose outcome is unknown does not: the worker goes on to its next check.
 */
public final class LabWorker {
    private LabWorker() {}

    public static void main(String[] args) throws Exception {
        WorkerOptions o = WorkerOptions.parse(args);
        Emitter ev = new Emitter();
        int code;
        try (Holder holder = o.service.equals("naive") ? new NaiveHolder(o, ev) : new TenureHolder(o, ev);
                StoreClient store = new StoreClient(o.store, Duration.ofMillis(Math.max(30_000, o.requestTimeoutMs)))) {
            code = run(o, ev, holder, store);
        }
        System.exit(code);
    }

    private static int run(WorkerOptions o, Emitter ev, Holder holder, StoreClient store) throws InterruptedException {
        if (o.pauseBeforeAcquire) {
            ev.point("before-acquire");
        }
        long token = holder.acquire();
        if (token == 0) {
            return 3;
        }
        if (o.pauseAfterAcquire) {
            ev.point("after-acquire");
        }
        BooleanSupplier stop = o.untilGo ? ev.goAhead() : () -> false;
        for (int n = 1; n <= o.writes && !stop.getAsBoolean(); n++) {
            long fence = holder.check();
            if (fence == 0) {
                break; // it knows it lost the lock: stop, write nothing more
            }
            if (n == o.pauseBeforeWrite) {
                ev.point("before-write");
            }
            if (!write(o, ev, store, fence, n)) {
                break;
            }
            if (n < o.writes) {
                TimeUnit.MILLISECONDS.sleep(o.intervalMs);
            }
        }
        if (o.pauseBeforeRelease) {
            ev.point("before-release");
        }
        holder.release();
        return 0;
    }

    /** One write; false if the store refused the token. */
    private static boolean write(WorkerOptions o, Emitter ev, StoreClient store, long token, int n) {
        String value = o.name + "/" + token + "/" + n;
        long id = ev.nextId();
        ev.emit(id, "invoke", "write", "lock", o.lock, "res", o.resource, "token", token, "n", n, "value", value);
        try {
            StoreClient.Reply r = store.write(o.resource, o.name, o.lock, token, n, value);
            if (r.ok()) {
                ev.emit(id, "ok", "write", "lock", o.lock, "res", o.resource, "token", token, "n", n, "value", value);
                return true;
            }
            String kind = r.rejected() ? "fail" : "indeterminate";
            ev.emit(
                    id,
                    kind,
                    "write",
                    "lock",
                    o.lock,
                    "res",
                    o.resource,
                    "token",
                    token,
                    "n",
                    n,
                    "value",
                    value,
                    "detail",
                    r.code() + " " + r.detail());
            return !r.rejected();
        } catch (IOException e) {
            ev.emit(
                    id,
                    "indeterminate",
                    "write",
                    "lock",
                    o.lock,
                    "res",
                    o.resource,
                    "token",
                    token,
                    "n",
                    n,
                    "value",
                    value,
                    "detail",
                    String.valueOf(e.getMessage()));
            return true;
        }
    }
}
