package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Nothing is acknowledged while the lock service has no quorum: no acquire, renewal, release or
 * write both invoked and acknowledged inside such a window. An operation invoked before the window
 * may be acknowledged in it (it may have been decided before the quorum was lost), and one
 * invoked in it may be acknowledged after it (decided once the quorum was back).
 */
public final class FailClosed implements Checker {
    private static final Set<Op> ACKED = Set.of(Op.ACQUIRE, Op.WRITE, Op.RENEW, Op.RELEASE);

    @Override
    public String name() {
        return "fail-closed";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        if (o.windows().isEmpty()) {
            return out;
        }
        Map<String, Event> invokes = new TreeMap<>();
        for (Event e : o.events()) {
            String key = e.process() + "#" + e.id();
            if (e.kind() == Kind.INVOKE) {
                invokes.put(key, e);
            } else if (e.kind() == Kind.OK && ACKED.contains(e.op())) {
                Event invoke = invokes.get(key);
                if (invoke == null) {
                    continue;
                }
                for (Window w : o.windows()) {
                    if (w.contains(invoke.nanos()) && w.contains(e.nanos())) {
                        out.add(new Violation(
                                name(),
                                e.op().name().toLowerCase(Locale.ROOT) + " by " + e.process() + describe(e)
                                        + " invoked at "
                                        + invoke.millis() + " ms was acknowledged at " + e.millis() + " ms, during "
                                        + w.what()));
                    }
                }
            }
        }
        return out;
    }

    private static String describe(Event e) {
        if (e.op() == Op.WRITE) {
            return " (write " + e.n() + " to '" + e.resource() + "', token " + e.token() + ")";
        }
        return e.token() == 0 ? "" : " (token " + e.token() + ")";
    }
}
