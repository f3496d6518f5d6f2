package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;

/**
 * No write is accepted from a holder after the lock was granted to someone else: once the lab has
 * seen a later grant of the write's lock to another process, the writer's section is over, and
 * the resource must refuse it. This catches a stale write even when it lands before the new
 * holder's first write, where the accept log alone shows no disorder.
 *
 * <p>Times are when the lab received each event, so a grant counts only once the lab saw it
 * acknowledged: the check can miss a stale write that raced the news of the grant, never blame a
 * write that was not stale. For the same reason a grant with a lower token than the writer's
 * does not count, whenever it was seen: the service made it before the writer's own.
 */
public final class NoStaleWrites implements Checker {
    @Override
    public String name() {
        return "no-stale-writes";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        List<Event> grants = o.events().stream()
                .filter(e -> e.kind() == Kind.OK && e.op() == Op.ACQUIRE)
                .toList();
        for (Accept a : o.accepts()) {
            if (a.outcome() != Accept.Outcome.ACCEPTED) {
                continue;
            }
            Event own = grants.stream()
                    .filter(g -> g.process().equals(a.writer()) && g.lock().equals(a.lock()) && g.token() == a.token())
                    .filter(g -> g.nanos() <= a.nanos())
                    .reduce((first, second) -> second)
                    .orElse(null);
            if (own == null) {
                continue; // no grant seen for it: nothing to compare with
            }
            grants.stream()
                    .filter(g -> !g.process().equals(a.writer()) && g.lock().equals(a.lock()))
                    .filter(g -> g.nanos() > own.nanos() && g.nanos() < a.nanos())
                    // A lower token was granted before the writer's own and only seen late (its
                    // holder was paused with the reply in hand): it ended before the writer's began.
                    .filter(g -> g.token() >= own.token())
                    .findFirst()
                    .ifPresent(g -> out.add(new Violation(
                            name(),
                            "'" + a.resource() + "' accepted write " + a.n() + " of " + a.writer() + " (token "
                                    + a.token() + ") at " + a.nanos() / 1_000_000 + " ms, after " + g.process()
                                    + " was granted the lock (token " + g.token() + ") at " + g.millis() + " ms")));
        }
        return out;
    }
}
