package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per resource, the tokens of accepted writes never go down in the order the resource applied
 * them. A lower token accepted after a higher one is a write from a holder that had already been
 * superseded.
 */
public final class MonotonicTokens implements Checker {
    @Override
    public String name() {
        return "monotonic-tokens";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        Map<String, Accept> highest = new TreeMap<>();
        for (Accept a : o.accepts()) {
            if (a.outcome() != Accept.Outcome.ACCEPTED) {
                continue;
            }
            Accept top = highest.get(a.resource());
            if (top != null && a.token() < top.token()) {
                out.add(new Violation(
                        name(),
                        "'" + a.resource() + "' accepted write " + a.n() + " of " + a.writer() + " with token "
                                + a.token() + " after token " + top.token() + " (" + top.writer() + ")"));
            } else {
                highest.put(a.resource(), a);
            }
        }
        return out;
    }
}
