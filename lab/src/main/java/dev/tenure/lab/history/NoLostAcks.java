package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * No acknowledged write is lost: each write a worker saw acknowledged is in the resource's accept
 * log, and the value the real store holds after the run is that of a write at least as new (by
 * token) as every acknowledged one. A stale write landing last, or a store that forgot what it
 * acknowledged, breaks it. Written values are unique per write, which is how a final value is
 * traced back to the write that produced it.
 */
public final class NoLostAcks implements Checker {
    @Override
    public String name() {
        return "no-lost-acks";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        Map<String, Event> newestAcked = new TreeMap<>();
        for (Event e : o.events()) {
            if (e.kind() != Kind.OK || e.op() != Op.WRITE) {
                continue;
            }
            if (!inLog(o, e)) {
                out.add(new Violation(
                        name(),
                        "write " + e.n() + " of " + e.process() + " to '" + e.resource() + "' (token " + e.token()
                                + ") was acknowledged but the resource has no record of accepting it"));
            }
            Event top = newestAcked.get(e.resource());
            if (top == null || e.token() > top.token() || (e.token() == top.token() && e.n() > top.n())) {
                newestAcked.put(e.resource(), e);
            }
        }
        for (Map.Entry<String, Event> entry : newestAcked.entrySet()) {
            checkFinal(o, entry.getKey(), entry.getValue(), out);
        }
        return out;
    }

    private static boolean inLog(Observation o, Event e) {
        return o.accepts().stream()
                .anyMatch(a -> a.outcome() == Accept.Outcome.ACCEPTED
                        && a.resource().equals(e.resource())
                        && a.writer().equals(e.process())
                        && a.token() == e.token()
                        && a.n() == e.n());
    }

    private void checkFinal(Observation o, String resource, Event newest, List<Violation> out) {
        Optional<String> value = o.finalValues().getOrDefault(resource, Optional.empty());
        String acked = "write " + newest.n() + " of " + newest.process() + " (token " + newest.token() + ")";
        if (value.isEmpty()) {
            out.add(new Violation(name(), "'" + resource + "' is empty after the run; " + acked + " was acknowledged"));
            return;
        }
        Optional<Accept> source = o.accepts().stream()
                .filter(a -> a.outcome() != Accept.Outcome.REJECTED
                        && a.resource().equals(resource)
                        && a.value().equals(value.get()))
                .reduce((first, second) -> second);
        if (source.isEmpty()) {
            out.add(new Violation(
                    name(),
                    "'" + resource + "' holds '" + value.get() + "', which no write in its accept log explains; "
                            + acked + " was acknowledged"));
        } else if (source.get().token() < newest.token()) {
            Accept s = source.get();
            out.add(new Violation(
                    name(),
                    acked + " to '" + resource + "' was acknowledged, but the resource ends with write " + s.n()
                            + " of " + s.writer() + " (token " + s.token() + "): overwritten by a stale write"));
        }
    }
}
