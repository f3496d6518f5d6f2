package dev.tenure.lab.history;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The history of one run, in the order the lab received it, every entry stamped by this one
 * monotonic clock. Workers report their events as lines {@code @ev {json}} on stdout; the lab adds
 * its own (faults). Receiving time is what counts: a worker's clock is never compared with
 * another's.
 */
public final class History {
    /** The prefix of an event line on a worker's stdout. */
    public static final String PREFIX = "@ev ";

    private final long originNanos = System.nanoTime();
    private final List<Event> events = new ArrayList<>(); // guarded by this
    private final Map<String, Event> open = new LinkedHashMap<>(); // guarded by this
    private final List<Window> windows = new ArrayList<>(); // guarded by this

    /** Lab time: nanoseconds since this history began. */
    public long now() {
        return System.nanoTime() - originNanos;
    }

    public synchronized Event add(Event e) {
        events.add(e);
        String key = e.process() + "#" + e.id();
        if (e.kind() == Kind.INVOKE) {
            open.put(key, e);
        } else if (e.kind() != Kind.INFO) {
            open.remove(key);
        }
        notifyAll();
        return e;
    }

    /** Parses a worker's stdout line; returns null for lines that are not events. */
    public @Nullable Event fromWorker(String process, String line) {
        if (!line.startsWith(PREFIX)) {
            return null;
        }
        long at = now();
        JsonObject j = JsonParser.parseString(line.substring(PREFIX.length())).getAsJsonObject();
        Event e = new Event(
                at,
                process,
                j.has("id") ? j.get("id").getAsLong() : 0,
                Kind.valueOf(j.get("kind").getAsString().toUpperCase(Locale.ROOT)),
                Op.valueOf(j.get("op").getAsString().toUpperCase(Locale.ROOT)),
                str(j, "lock"),
                str(j, "res"),
                j.has("token") ? j.get("token").getAsLong() : 0,
                j.has("n") ? j.get("n").getAsInt() : 0,
                str(j, "value"),
                str(j, "detail"));
        return add(e);
    }

    private static String str(JsonObject j, String field) {
        return j.has(field) && !j.get(field).isJsonNull() ? j.get(field).getAsString() : "";
    }

    /** A fault or heal by the lab itself. */
    public Event lab(Op op, String detail) {
        return add(Event.of(now(), "lab", 0, Kind.INFO, op).withDetail(detail));
    }

    public synchronized void window(Window w) {
        windows.add(w);
    }

    /**
     * Every operation still open is INDETERMINATE: its process died or was abandoned before it
     * learnt the outcome, so the operation may or may not have happened.
     */
    public synchronized void closeOpen(String why) {
        for (Event invoke : new ArrayList<>(open.values())) {
            add(new Event(
                    now(),
                    invoke.process(),
                    invoke.id(),
                    Kind.INDETERMINATE,
                    invoke.op(),
                    invoke.lock(),
                    invoke.resource(),
                    invoke.token(),
                    invoke.n(),
                    invoke.value(),
                    why));
        }
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    public synchronized List<Window> windows() {
        return List.copyOf(windows);
    }

    /** Waits until an event matching {@code match} arrives; returns it, or null on timeout. */
    public synchronized @Nullable Event await(java.util.function.Predicate<Event> match, long timeoutNanos)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        int seen = 0;
        while (true) {
            for (; seen < events.size(); seen++) {
                if (match.test(events.get(seen))) {
                    return events.get(seen);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
