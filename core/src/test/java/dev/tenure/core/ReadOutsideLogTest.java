package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.ListLocks;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.LockList;
import dev.tenure.core.Result.LockView;
import org.junit.jupiter.api.Test;

/**
 * {@link StateMachine#read}: what a read through the log answers at the last step's timestamp,
 * without moving time, firing a deadline or changing the state.
 */
class ReadOutsideLogTest {

    @Test
    void answersAsTheLogWouldAtTheLastStep() {
        Fixture f = new Fixture();
        long s = f.open(1_000);
        Grant g = f.grant(s, 1, "m");
        f.apply(new Put(0, 0, "k", new byte[] {7}, null, 0, false, ""));

        assertThat(f.sm.read(new Status("m"))).isEqualTo(f.sm.apply(f.now, new Status("m")));
        assertThat(f.sm.read(new Get("k"))).usingRecursiveComparison().isEqualTo(f.sm.apply(f.now, new Get("k")));
        assertThat(f.sm.read(new ListLocks("", "", 10, Long.MAX_VALUE)))
                .isEqualTo(f.sm.apply(f.now, new ListLocks("", "", 10, Long.MAX_VALUE)));
        LockView view = (LockView) f.sm.read(new Status("m"));
        assertThat(view.holder().token()).isEqualTo(g.token());
        assertThat(((KvValue) f.sm.read(new Get("k"))).value()).containsExactly(7);
        assertThat(((LockList) f.sm.read(new ListLocks("", "", 10, Long.MAX_VALUE))).locks())
                .hasSize(1);
    }

    /**
     * A deadline already due by the clock stays unfired until a step brings it: the read shows the
     * state at the last step's log position, where that session still holds.
     */
    @Test
    void movesNoTimeAndFiresNoDeadline() {
        Fixture f = new Fixture();
        long s = f.open(1_000);
        f.grant(s, 1, "m");
        byte[] before = f.sm.snapshot();
        long revision = f.sm.revision();

        LockView view = (LockView) f.sm.read(new Status("m"));

        assertThat(view.holder().sessionId()).isEqualTo(s);
        assertThat(view.nowMs()).isEqualTo(f.now);
        assertThat(f.sm.snapshot()).isEqualTo(before);
        assertThat(f.sm.revision()).isEqualTo(revision);
        // The same read through the log long after the TTL expires the session first.
        LockView later = (LockView) f.sm.apply(f.now + 60_000, new Status("m"));
        assertThat(later.holder()).isNull();
    }

    @Test
    void refusesAnythingButAReadItServes() {
        Fixture f = new Fixture();
        assertThatThrownBy(() -> f.sm.read(new Command.OpenSession(1_000, "c")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a read");
        assertThatThrownBy(() -> f.sm.read(new Command.Stats())).isInstanceOf(IllegalArgumentException.class);
    }
}
