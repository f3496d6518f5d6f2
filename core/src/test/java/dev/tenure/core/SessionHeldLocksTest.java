package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionHeldLocksTest {
    @Test
    void heldLocksStayInNameOrderFromNoneToManyAndBack() {
        SessionRecord s = new SessionRecord(1, 10_000, "c", "", SecretHash.NONE, 20_000, 1, new RequestCache());
        assertThat(s.heldLocks()).isEmpty();
        s.addHeld("m");
        s.addHeld("m"); // held already: no second copy
        assertThat(s.heldLocks()).containsExactly("m");
        assertThat(s.holds("m")).isTrue();
        s.addHeld("b");
        s.addHeld("z");
        assertThat(s.heldLocks()).containsExactly("b", "m", "z");
        assertThat(s.heldCount()).isEqualTo(3);
        s.removeHeld("m");
        s.removeHeld("b");
        assertThat(s.heldLocks()).containsExactly("z");
        assertThat(s.holds("b")).isFalse();
        s.removeHeld("q"); // not held: nothing changes
        assertThat(s.heldCount()).isEqualTo(1);
        s.removeHeld("z");
        assertThat(s.heldLocks()).isEmpty();
        assertThat(s.leaseCount()).isZero();
    }
}
