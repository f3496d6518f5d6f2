package dev.tenure.lab.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link GrantsKept} on hand-made histories, and the longest gap between grants. */
class GrantsKeptTest {

    /** A hands over to B; both release their own grant. */
    private static Histories handover() {
        return new Histories()
                .grant(0, "A", 5)
                .write(10, "A", 5, 1)
                .release(20, "A", 5, Kind.OK)
                .grant(30, "B", 7)
                .write(40, "B", 7, 1)
                .release(50, "B", 7, Kind.OK);
    }

    @Test
    void grantsReleasedByTheirHoldersAreKept() {
        assertThat(new GrantsKept().check(handover().build())).isEmpty();
    }

    @Test
    void aLeaseTheClientDeclaredLostIsAViolation() {
        Observation o = handover().lost(45, "B", "lease 7 lost: EXPIRED").build();
        assertThat(new GrantsKept().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message())
                        .isEqualTo("B's grant of 'L' (token 7) was lost: lease 7 lost: EXPIRED"));
    }

    @Test
    void theEndOfALeaseItsHolderReleasedIsNotALoss() {
        Observation o = handover()
                .lost(21, "A", "lease 5 lost: RELEASED")
                .lost(31, "B", "fence refused: lease of 'L' (token 7) has 461 ms left, 500 ms needed")
                .build();
        assertThat(new GrantsKept().check(o)).isEmpty();
    }

    @Test
    void aReleaseAnsweredNotOwnerIsAViolation() {
        Observation o = new Histories()
                .grant(0, "A", 5)
                .write(10, "A", 5, 1)
                .release(20, "A", 5, Kind.FAIL)
                .build();
        assertThat(new GrantsKept().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message())
                        .isEqualTo("A's grant of 'L' (token 5) has no acknowledged release by its holder"));
    }

    @Test
    void aGrantNeverReleasedIsAViolation() {
        Observation o = new Histories().grant(0, "A", 5).build();
        assertThat(new GrantsKept().check(o)).extracting(Violation::checker).containsExactly("grants-kept");
    }

    @Test
    void theLongestGapCountsTheSpansEndsAndIgnoresGrantsOutsideIt() {
        Histories h = new Histories()
                .grant(0, "A", 5) // before the span: ignored
                .grant(100, "B", 7)
                .grant(130, "C", 9)
                .grant(1_330, "D", 11)
                .grant(1_400, "E", 13)
                .grant(5_000, "F", 15); // after the span: ignored
        // Gaps inside [50 ms, 1500 ms]: 50, 30, 1200, 70 and, to the span's end, 100.
        assertThat(GrantsKept.longestGrantGapMs(h.events(), ms(50), ms(1_500))).isEqualTo(1_200);
        // No grant inside the span: the whole span is the gap.
        assertThat(GrantsKept.longestGrantGapMs(h.events(), ms(2_000), ms(4_500)))
                .isEqualTo(2_500);
    }

    @Test
    void theLongestGapDoesNotDependOnTheOrderEventsArrivedIn() {
        Histories h = new Histories().grant(400, "B", 7).grant(100, "A", 5);
        assertThat(GrantsKept.longestGrantGapMs(h.events(), 0, ms(500))).isEqualTo(300);
    }

    private static long ms(long ms) {
        return ms * 1_000_000;
    }
}
