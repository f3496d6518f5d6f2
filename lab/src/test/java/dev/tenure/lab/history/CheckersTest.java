package dev.tenure.lab.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each checker on a hand-made clean history (no violation) and a violating one (exactly its). */
class CheckersTest {

    /** A hands over to B cleanly: every checker is satisfied. */
    static Histories clean() {
        return new Histories()
                .grant(0, "A", 5)
                .write(10, "A", 5, 1)
                .write(20, "A", 5, 2)
                .grant(30, "B", 7)
                .write(40, "B", 7, 1)
                .write(50, "B", 7, 2);
    }

    @Test
    void aCleanHandoverBreaksNothing() {
        assertThat(Checkers.check(clean().build())).isEmpty();
    }

    @Test
    void monotonicTokensFlagsALowerTokenAcceptedAfterAHigherOne() {
        Observation o = new Histories()
                .grant(0, "A", 5)
                .write(10, "A", 5, 1)
                .grant(20, "B", 7)
                .write(30, "B", 7, 1)
                .accept(40, "A", 5, 2, Accept.Outcome.ACCEPTED) // the paused A's late write
                .build();
        assertThat(new MonotonicTokens().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message()).contains("token 5 after token 7"));
        assertThat(new MonotonicTokens().check(clean().build())).isEmpty();
    }

    @Test
    void aRejectedStaleWriteIsNotAViolation() {
        Observation o = clean().accept(60, "A", 5, 3, Accept.Outcome.REJECTED).build();
        assertThat(Checkers.check(o)).isEmpty();
    }

    @Test
    void noInterleavingFlagsASectionThatResumesAfterAnotherOne() {
        // A's section resumes after B's began, then B's resumes after A's: two interleavings.
        Observation o = new Histories()
                .write(10, "A", 9, 1)
                .write(20, "B", 12, 1)
                .write(30, "A", 9, 2)
                .write(40, "B", 12, 2)
                .build();
        assertThat(new NoInterleaving().check(o)).hasSize(2);
        assertThat(new NoInterleaving().check(clean().build())).isEmpty();
    }

    @Test
    void noLostAcksFlagsAnAcknowledgedWriteOverwrittenByAStaleOne() {
        Observation o = new Histories()
                .write(10, "B", 7, 1)
                .accept(20, "A", 5, 1, Accept.Outcome.ACCEPTED) // a dead holder's write lands last
                .build();
        assertThat(new NoLostAcks().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message()).contains("overwritten by a stale write"));
        assertThat(new NoLostAcks().check(clean().build())).isEmpty();
    }

    @Test
    void noLostAcksFlagsAnAckTheStoreHasNoRecordOfAndAStoreThatForgot() {
        Observation missing = clean().ack(60, 61, "B", 7, 3).build();
        assertThat(new NoLostAcks().check(missing))
                .anySatisfy(v -> assertThat(v.message()).contains("no record of accepting it"));

        Observation forgot = clean().finalValue(Optional.empty()).build();
        assertThat(new NoLostAcks().check(forgot))
                .singleElement()
                .satisfies(v -> assertThat(v.message()).contains("is empty after the run"));
    }

    @Test
    void noLostAcksAcceptsAFinalValueFromAWriteWhoseOutcomeWasUnknown() {
        // The store timed out (UNKNOWN) but the write was applied later by the same, newest holder.
        Observation o = clean().accept(60, "B", 7, 3, Accept.Outcome.UNKNOWN)
                .finalValue(Optional.of(Histories.value("B", 7, 3)))
                .build();
        assertThat(new NoLostAcks().check(o)).isEmpty();
    }

    @Test
    void noStaleWritesFlagsAWriteAcceptedAfterAnotherHolderWasGranted() {
        // The paused A writes after B's grant but before B's first write: the log order is fine,
        // the mutual exclusion is not.
        Observation o = new Histories()
                .grant(0, "A", 5)
                .write(10, "A", 5, 1)
                .grant(30, "B", 7)
                .write(40, "A", 5, 2)
                .write(50, "B", 7, 1)
                .build();
        assertThat(new MonotonicTokens().check(o)).isEmpty();
        assertThat(new NoInterleaving().check(o)).isEmpty();
        assertThat(new NoStaleWrites().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message()).contains("write 2 of A").contains("after B"));
        assertThat(new NoStaleWrites().check(clean().build())).isEmpty();
    }

    @Test
    void noStaleWritesIgnoresAnEarlierGrantSeenLate() {
        // A was paused with its grant (token 18) in hand; its session expired and B got 19. A's
        // grant is reported after B's (A then finds its lease lost and writes nothing): B's writes
        // are the current holder's, not stale.
        Observation o = new Histories()
                .grant(0, "B", 19)
                .write(10, "B", 19, 1)
                .grant(20, "A", 18)
                .write(30, "B", 19, 2)
                .build();
        assertThat(new NoStaleWrites().check(o)).isEmpty();
    }

    @Test
    void uniqueGrantsFlagsATokenGrantedTwice() {
        Observation o = new Histories().grant(0, "A", 1).grant(10, "B", 1).build();
        assertThat(new UniqueGrants().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message()).contains("token 1 granted to A"));
        assertThat(new UniqueGrants().check(clean().build())).isEmpty();
    }

    @Test
    void failClosedFlagsOnlyWhatWasInvokedAndAcknowledgedInsideTheWindow() {
        Observation o = new Histories()
                .ack(90, 110, "A", 5, 1) // invoked before the window: may have been decided before it
                .ack(120, 130, "A", 5, 2) // invoked and acknowledged without a quorum: a violation
                .ack(150, 250, "A", 5, 3) // acknowledged after the quorum was back
                .window(100, 200)
                .build();
        assertThat(new FailClosed().check(o))
                .singleElement()
                .satisfies(v -> assertThat(v.message()).contains("write 2").contains("during quorum loss"));
        assertThat(new FailClosed().check(clean().window(100, 200).build())).isEmpty();
    }
}
