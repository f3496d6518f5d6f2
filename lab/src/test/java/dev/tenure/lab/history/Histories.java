package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Hand-made histories for the checker tests: a tiny builder, times in ms. */
final class Histories {
    private final List<Event> events = new ArrayList<>();
    private final List<Accept> accepts = new ArrayList<>();
    private final Map<String, Optional<String>> finals = new TreeMap<>();
    private final List<Window> windows = new ArrayList<>();
    private long ids;

    static final String R = "res";

    Histories grant(long atMs, String process, long token) {
        long id = ++ids;
        events.add(new Event(ms(atMs), process, id, Kind.INVOKE, Op.ACQUIRE, "L", "", 0, 0, "", ""));
        events.add(new Event(ms(atMs), process, id, Kind.OK, Op.ACQUIRE, "L", "", token, 0, "", ""));
        return this;
    }

    /** A write the worker saw acknowledged, and the store accepted. */
    Histories write(long atMs, String process, long token, int n) {
        ack(atMs, atMs, process, token, n);
        return accept(atMs, process, token, n, Accept.Outcome.ACCEPTED);
    }

    Histories ack(long invokedMs, long ackedMs, String process, long token, int n) {
        long id = ++ids;
        String v = value(process, token, n);
        events.add(new Event(ms(invokedMs), process, id, Kind.INVOKE, Op.WRITE, "L", R, token, n, v, ""));
        events.add(new Event(ms(ackedMs), process, id, Kind.OK, Op.WRITE, "L", R, token, n, v, ""));
        return this;
    }

    Histories accept(long atMs, String writer, long token, int n, Accept.Outcome outcome) {
        accepts.add(
                new Accept(accepts.size() + 1, ms(atMs), R, writer, "L", token, n, value(writer, token, n), outcome));
        if (outcome == Accept.Outcome.ACCEPTED) {
            finals.put(R, Optional.of(value(writer, token, n)));
        }
        return this;
    }

    /** A release of {@code token} by its holder, answered {@code kind} (OK, FAIL: not owner). */
    Histories release(long atMs, String process, long token, Kind kind) {
        long id = ++ids;
        events.add(new Event(ms(atMs), process, id, Kind.INVOKE, Op.RELEASE, "L", "", token, 0, "", ""));
        events.add(new Event(ms(atMs), process, id, kind, Op.RELEASE, "L", "", token, 0, "", ""));
        return this;
    }

    /** The lock client told {@code process} its lease was lost. */
    Histories lost(long atMs, String process, String why) {
        events.add(new Event(ms(atMs), process, 0, Kind.INFO, Op.LOST, "", "", 0, 0, "", why));
        return this;
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    Histories finalValue(Optional<String> v) {
        finals.put(R, v);
        return this;
    }

    Histories window(long fromMs, long toMs) {
        windows.add(new Window("quorum loss", ms(fromMs), ms(toMs)));
        return this;
    }

    Observation build() {
        return new Observation(events, accepts, finals, windows);
    }

    static String value(String process, long token, int n) {
        return process + "/" + token + "/" + n;
    }

    private static long ms(long ms) {
        return ms * 1_000_000;
    }
}
