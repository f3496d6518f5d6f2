package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.SessionOpened;
import java.util.ArrayList;
import java.util.List;

/** A state machine with full invariant checks after every step, and shorthands for the tests. */
final class Fixture {
    final StateMachine sm;
    long now = 1_000;

    Fixture() {
        this(Limits.defaults());
    }

    Fixture(Limits limits) {
        sm = new StateMachine(limits);
        sm.setFullInvariantChecks(true);
    }

    /** Small limits so that every bound is easy to reach. */
    static Limits small() {
        return new Limits(
                100, // sessionTtlMsMin
                10_000, // sessionTtlMsMax
                8, // lockNameBytesMax
                8, // keyBytesMax
                4, // valueBytesMax
                4, // clientNameBytesMax
                3, // sessionsMax
                2, // leasesPerSessionMax
                1_000, // locksMax
                1_000, // waitersMax
                2, // waitersPerLockMax
                2, // kvKeysMax
                1L << 30, // kvBytesMax
                3, // requestIdCacheMax
                2, // historyPerLockMax
                2, // idleLocksMax
                600_000, // lockDelayMsMax
                604_800_000, // maxHoldMsMax
                16_384, // checkpointBytesMax
                1L << 30, // checkpointTotalBytesMax
                1_000, // ephemeralKeysPerSessionMax
                1_000, // permitsMax
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax
                0, // readLeaseMs
                PrincipalLimits.defaults());
    }

    Result apply(Command c) {
        Result r = sm.apply(now, c);
        sm.checkInvariants();
        return r;
    }

    Result at(long ts, Command c) {
        now = ts;
        return apply(c);
    }

    void advanceTo(long ts) {
        now = ts;
        sm.advance(ts);
        sm.checkInvariants();
    }

    long open(long ttlMs) {
        return open(ttlMs, "c");
    }

    long open(long ttlMs, String name) {
        Result r = apply(new OpenSession(ttlMs, name));
        assertThat(r).isInstanceOf(SessionOpened.class);
        return ((SessionOpened) r).sessionId();
    }

    Grant grant(long sid, long rid, String lock) {
        Result r = apply(new Acquire(sid, rid, lock, 0));
        assertThat(r).isInstanceOf(Granted.class);
        return ((Granted) r).grant();
    }

    Result release(long sid, long rid, String lock, long token) {
        return apply(new Release(sid, rid, lock, token, false));
    }

    List<Event> events() {
        List<Event> out = new ArrayList<>();
        sm.drainEvents(out);
        return out;
    }

    static Code code(Result r) {
        assertThat(r).isInstanceOf(Rejected.class);
        return ((Rejected) r).code();
    }

    static Rejected rejected(Result r) {
        assertThat(r).isInstanceOf(Rejected.class);
        return (Rejected) r;
    }
}
