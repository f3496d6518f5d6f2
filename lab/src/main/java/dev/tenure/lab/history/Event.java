package dev.tenure.lab.history;

/**
 * One entry of a run's history, stamped by the lab's one monotonic clock when the lab received
 * it.
 *
 * @param nanos lab time since the history began
 * @param process worker name ("A", "B", ...) or "lab"
 * @param id the operation's id within its process, pairing its invoke with its completion
 * @param token the fencing token (Tenure) or the naive lock's generation; 0 if none
 * @param n the write's number within its critical section (1, 2, ...); 0 if not a write
 */
public record Event(
        long nanos,
        String process,
        long id,
        Kind kind,
        Op op,
        String lock,
        String resource,
        long token,
        int n,
        String value,
        String detail) {

    public Event {
        lock = lock == null ? "" : lock;
        resource = resource == null ? "" : resource;
        value = value == null ? "" : value;
        detail = detail == null ? "" : detail;
    }

    public static Event of(long nanos, String process, long id, Kind kind, Op op) {
        return new Event(nanos, process, id, kind, op, "", "", 0, 0, "", "");
    }

    public Event withToken(long t) {
        return new Event(nanos, process, id, kind, op, lock, resource, t, n, value, detail);
    }

    public Event withWrite(String res, long t, int number, String v) {
        return new Event(nanos, process, id, kind, op, lock, res, t, number, v, detail);
    }

    public Event withLock(String l) {
        return new Event(nanos, process, id, kind, op, l, resource, token, n, value, detail);
    }

    public Event withDetail(String d) {
        return new Event(nanos, process, id, kind, op, lock, resource, token, n, value, d);
    }

    public long millis() {
        return nanos / 1_000_000;
    }
}
