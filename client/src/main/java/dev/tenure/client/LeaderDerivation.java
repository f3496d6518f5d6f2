package dev.tenure.client;

import org.jspecify.annotations.Nullable;

/**
 * Derives an election's leader from the watch events of its name, one event at a time, and says
 * which views to report: a pure function of the events in revision order, no clock, no I/O.
 *
 * <p>Never skips a term: the log grants every term of an election as one GRANTED change of its
 * name, and the watch delivers every change of the name once, in revision order; every GRANTED
 * here yields a view with its own token, which differs from every view before it (tokens strictly
 * increase), so it is reported, whatever comes after it. Nothing is merged: a view is reported
 * for the event that produced it, not for the state the events have reached by the time the
 * listener runs.
 *
 * <p>Rules, for the election's name:
 *
 * <ol>
 *   <li>an exclusive GRANTED of a plain lock (not shared, one permit) is a new leader: its session,
 *       token and the value it campaigned with;
 *   <li>ENDED of the leader's token is no leader; DOWNGRADED of it too (a shared lease leads
 *       nobody); after a resume, before any leader is known, ENDED of any exclusive lease;
 *   <li>PROCLAIMED is the same term with a new value (reported only if the value differs);
 *   <li>everything else (shared or semaphore grants and ends, QUEUED, LEFT, keys) changes nothing.
 * </ol>
 *
 * <p>A watch from the current state first delivers its items (marked current, all at the
 * revision the state was read at), then the sync: the items only build the leader, the sync
 * reports it. A watch broken before its sync starts over with a new current state, at another
 * revision: items at a new revision start the leader afresh. Not thread-safe: the watch's
 * listener calls it on one thread at a time.
 */
final class LeaderDerivation {
    private final String election;
    /** What the events so far say; null before any event or while nothing is known (a resume). */
    private @Nullable LeaderView leader;
    /** The revision of the current-state items gathered in {@link #leader}; -1: none. */
    private long stateRevision = -1;
    /** The last view reported; null before the first. */
    private @Nullable LeaderView reported;

    LeaderDerivation(String election) {
        this.election = election;
    }

    /** A current-state item or a change: the view to report now, or null. */
    @Nullable
    LeaderView onEvent(WatchEvent e) {
        if (!e.name().equals(election)) {
            return null;
        }
        if (e.current()) {
            if (e.revision() != stateRevision) {
                stateRevision = e.revision();
                leader = LeaderView.none(election, e.revision());
            }
            leader = next(leader, e);
            return null;
        }
        LeaderView after = next(leader, e);
        if (after == null || after.equals(leader)) {
            return null; // nothing this election's leader is made of changed
        }
        leader = after;
        return report(after);
    }

    /** The current state has been delivered whole: the view to report now, or null. */
    @Nullable
    LeaderView onSynced(long revision) {
        LeaderView now = leader != null && stateRevision == revision ? leader : LeaderView.none(election, revision);
        leader = now;
        return report(now);
    }

    private @Nullable LeaderView report(LeaderView view) {
        if (reported != null && reported.sameLeaderAndValue(view)) {
            return null;
        }
        reported = view;
        return view;
    }

    /** The leader after {@code e}; {@code current} itself (the same object) when {@code e} changes nothing. */
    private @Nullable LeaderView next(@Nullable LeaderView current, WatchEvent e) {
        long token = current == null ? 0 : current.token();
        return switch (e.kind()) {
            case GRANTED ->
                e.shared() || e.permits() != 1
                        ? current
                        : new LeaderView(election, e.sessionId(), e.token(), e.value(), e.revision());
            case PROCLAIMED ->
                // Applied only for the current lease (the core refuses any other token), so it is
                // the leader's even when a resume has not seen its grant.
                new LeaderView(election, e.sessionId(), e.token(), e.value(), e.revision());
            case ENDED, DOWNGRADED ->
                // Resumed with no leader known yet: an exclusive lease's end is the leader's.
                (token != 0 && e.token() == token) || (current == null && !e.shared())
                        ? LeaderView.none(election, e.revision())
                        : current;
            case QUEUED, LEFT, KV_PUT, KV_DELETED -> current;
        };
    }
}
