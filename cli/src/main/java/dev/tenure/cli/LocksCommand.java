package dev.tenure.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.client.ListedLock;
import dev.tenure.client.LockStatus;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "locks",
        description = {
            "Lists the locks that are held, waited for or in their lock delay, in name order.",
            "One line each: holder (token, session, principal, how long held) and waiters. A semaphore's or a"
                    + " shared lock's further holders follow on lines of their own, marked +, oldest first.",
            "Pages through the node, one linearizable read per page; a lock that exists throughout is listed once,"
                    + " but the listing is not a snapshot across pages. A free lock kept only for its history is not"
                    + " listed (see `tenure status LOCK`)."
        })
final class LocksCommand implements Callable<Integer> {
    @Option(
            names = "--prefix",
            paramLabel = "P",
            description = "Only locks whose names start with P (byte for byte). Needs read on every name under P.")
    String prefix = "";

    @Option(
            names = "--page-size",
            paramLabel = "N",
            description = "Locks per page (default: the node's listPageDefault; at most its listPageMax, 1,000"
                    + " by default; a larger page is refused, exit 2).")
    @Nullable
    Integer pageSize;

    @Option(names = "--json", description = "One JSON object per lock, one per line.")
    boolean json;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        if (pageSize != null && pageSize < 1) {
            throw new IllegalArgumentException("--page-size must be at least 1, was " + pageSize);
        }
        PrintStream out = System.out;
        try (TenureClient tenure = client.client()) {
            if (!json) {
                out.printf(ROW + "%n", "LOCK", "TOKEN", "SESSION", "PRINCIPAL", "HELD", "WAITERS");
            }
            String after = "";
            while (true) {
                ListedLock.Page page = tenure.listLocks(prefix, after, pageSize == null ? 0 : pageSize);
                for (ListedLock lock : page.locks()) {
                    out.println(
                            json
                                    ? Json.line(json(lock, page.now().toEpochMilli()))
                                    : text(lock, page.now().toEpochMilli()));
                }
                out.flush();
                if (!page.more() || page.locks().isEmpty()) {
                    return ExitCodes.OK;
                }
                after = page.nextAfter(after);
            }
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    static JsonObject json(ListedLock lock, long nowMs) {
        JsonObject o = new JsonObject();
        o.addProperty("lock", lock.lock());
        lock.holder().ifPresent(h -> {
            o.addProperty("token", h.token());
            o.addProperty("session", h.sessionId());
            o.addProperty("client", h.clientName());
            if (!h.principal().isEmpty()) {
                o.addProperty("principal", h.principal());
            }
            o.addProperty("granted_at_ms", h.since().toEpochMilli());
            o.addProperty("held_ms", Math.max(0, nowMs - h.since().toEpochMilli()));
        });
        o.addProperty("waiters", lock.waiters());
        // Every current lease, in the shape `tenure status --json` gives each of its holders: the
        // fields above describe the oldest one only, which is all a plain lock has.
        JsonArray holders = new JsonArray();
        for (LockStatus.Holder h : lock.holders()) {
            holders.add(StatusCommand.holderJson(h));
        }
        o.add("holders", holders);
        lock.delayUntil().ifPresent(d -> o.addProperty("delay_until_ms", d.toEpochMilli()));
        return o;
    }

    private static final String ROW = "%-40s %12s %10s %-16s %10s %7s";

    /**
     * A lock's lines of the table: the lock with its oldest lease (the one a plain lock has) and
     * its waiter count, then one line for each further lease (a semaphore's or a shared lock's),
     * marked {@code +}, oldest first. A shared lock says so beside its name.
     */
    static String text(ListedLock lock, long nowMs) {
        List<LockStatus.Holder> holders = lock.holders();
        if (holders.isEmpty()) {
            return String.format(
                    ROW,
                    lock.lock(),
                    "-",
                    "-",
                    "-",
                    lock.delayUntil().isPresent() ? "delayed" : "free",
                    lock.waiters());
        }
        LockStatus.Holder first = holders.get(0);
        String name = lock.lock()
                + (first.shared() ? " (shared)" : holders.size() > 1 ? " (" + holders.size() + " leases)" : "");
        StringBuilder out = new StringBuilder(row(name, first, nowMs, String.valueOf(lock.waiters())));
        for (LockStatus.Holder h : holders.subList(1, holders.size())) {
            out.append(System.lineSeparator()).append(row("  +", h, nowMs, ""));
        }
        return out.toString();
    }

    private static String row(String lockColumn, LockStatus.Holder h, long nowMs, String waiters) {
        return String.format(
                        ROW,
                        lockColumn,
                        h.token(),
                        h.sessionId(),
                        h.principal().isEmpty() ? "-" : h.principal(),
                        held(nowMs - h.since().toEpochMilli()),
                        waiters)
                .stripTrailing();
    }

    private static String held(long ms) {
        if (ms < 10_000) {
            return ms + "ms";
        }
        long s = ms / 1000;
        return s < 3_600 ? s + "s" : (s / 3_600) + "h" + (s % 3_600) / 60 + "m";
    }
}
