package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;

/**
 * Every acknowledged grant lasted until its holder released it: the holder was never told it lost
 * the lease, and its release of that token was acknowledged (a release answered {@code NOT_OWNER},
 * or never answered, means the grant did not survive). Not among {@link Checkers#all()}: most
 * scenarios take leases away on purpose. It judges runs whose faults must leave every holder
 * alone, such as a rolling restart of the lock service.
 */
public final class GrantsKept implements Checker {
    @Override
    public String name() {
        return "grants-kept";
    }

    @Override
    public List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        for (Event grant : o.events()) {
            if (grant.kind() != Kind.OK || grant.op() != Op.ACQUIRE) {
                continue;
            }
            String who = grant.process() + "'s grant of '" + grant.lock() + "' (token " + grant.token() + ")";
            o.events().stream()
                    .filter(e -> e.process().equals(grant.process()) && e.op() == Op.LOST && !benign(e))
                    .findFirst()
                    .ifPresent(lost -> out.add(new Violation(name(), who + " was lost: " + lost.detail())));
            boolean released = o.events().stream()
                    .anyMatch(e -> e.process().equals(grant.process())
                            && e.kind() == Kind.OK
                            && e.op() == Op.RELEASE
                            && e.token() == grant.token());
            if (!released) {
                out.add(new Violation(name(), who + " has no acknowledged release by its holder"));
            }
        }
        return out;
    }

    /**
     * The client reports every lease's end, its holder's own release too ({@code RELEASED}); and a
     * {@code fence(minRemaining)} refused for too little time left is the holder declining to
     * write, not a loss: whether the grant was still its own, the acknowledged release says.
     */
    private static boolean benign(Event lost) {
        String d = lost.detail();
        return d.endsWith("lost: RELEASED") || (d.startsWith("fence refused:") && d.contains(" ms needed"));
    }

    /**
     * The longest time between two consecutive acknowledged grants (of any lock) from {@code
     * fromNanos} to {@code toNanos}, the ends of the span counting as grants; in ms.
     */
    public static long longestGrantGapMs(List<Event> events, long fromNanos, long toNanos) {
        long last = fromNanos;
        long longest = 0;
        List<Event> byTime = new ArrayList<>(events);
        byTime.sort(java.util.Comparator.comparingLong(Event::nanos)); // workers' lines arrive on several threads
        for (Event e : byTime) {
            if (e.kind() == Kind.OK && e.op() == Op.ACQUIRE && e.nanos() >= fromNanos && e.nanos() <= toNanos) {
                longest = Math.max(longest, e.nanos() - last);
                last = e.nanos();
            }
        }
        return Math.max(longest, toNanos - last) / 1_000_000;
    }
}
