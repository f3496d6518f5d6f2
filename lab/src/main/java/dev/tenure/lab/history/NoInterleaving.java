package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Per resource, the accepted writes of one critical section (one writer under one grant) are
 * contiguous: once another section's write was accepted, no write of an earlier section may
 * follow. Two holders whose writes interleave both acted on the resource at the same time.
 */
public final class NoInterleaving implements Checker {
    @Override
    public String name() {
        return "no-interleaving";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        Map<String, String> current = new TreeMap<>();
        Map<String, Set<String>> closed = new TreeMap<>();
        for (Accept a : o.accepts()) {
            if (a.outcome() != Accept.Outcome.ACCEPTED) {
                continue;
            }
            String section = a.section();
            String now = current.get(a.resource());
            if (section.equals(now)) {
                continue;
            }
            Set<String> done = closed.computeIfAbsent(a.resource(), r -> new TreeSet<>());
            if (done.contains(section)) {
                out.add(new Violation(
                        name(),
                        "'" + a.resource() + "': write " + a.n() + " of " + section + " accepted after " + now
                                + " had written: two holders' writes interleave"));
            }
            if (now != null) {
                done.add(now);
            }
            current.put(a.resource(), section);
        }
        return out;
    }
}
