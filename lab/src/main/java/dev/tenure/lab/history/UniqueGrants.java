package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A token is granted once: no two acknowledged acquires carry the same token. */
public final class UniqueGrants implements Checker {
    @Override
    public String name() {
        return "unique-grants";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        Map<Long, Event> byToken = new TreeMap<>();
        for (Event e : o.events()) {
            if (e.kind() != Kind.OK || e.op() != Op.ACQUIRE || e.token() == 0) {
                continue;
            }
            Event first = byToken.putIfAbsent(e.token(), e);
            if (first != null) {
                out.add(new Violation(
                        name(),
                        "token " + e.token() + " granted to " + first.process() + " (" + first.lock()
                                + ") and again to " + e.process() + " (" + e.lock() + ")"));
            }
        }
        return out;
    }
}
