package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The read lease's arithmetic against real time, with two clocks that drift: an old leader A
 * proves its lease by a probe at real time m; a new leader B's election ends at some real time
 * after m (the quorum that acknowledged A's entry voted for B only afterwards). Whatever their
 * rates within 1 ± 1/20 of real time, at no real moment may A answer a read by its lease while B
 * shows what it applies (B out of its quiet period). With a rate outside the bound, some moment
 * breaks that: the check can fail.
 */
class ReadLeaseDriftTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long PPM = 1_000_000;

    /** A clock that runs at {@code ratePpm} parts per million of real time, from {@code offset}. */
    private record Clock(long offset, long ratePpm) {
        long at(long realNanos) {
            return offset + realNanos / PPM * ratePpm + realNanos % PPM * ratePpm / PPM;
        }
    }

    /** The first real moment (ns) at which A serves by its lease while B is out of its quiet period; -1 if none. */
    private static long overlap(long leaseMs, Clock a, Clock b, long m, long electionEnd) {
        ReadLease old = new ReadLease();
        old.start(leaseMs, true, a.at(0));
        old.newTerm(true, a.at(0));
        old.proved(a.at(m));
        ReadLease next = new ReadLease();
        next.start(leaseMs, false, b.at(0));
        next.newTerm(true, b.at(electionEnd));
        next.role(true, b.at(electionEnd));
        long step = MS / 4;
        for (long t = electionEnd; t < m + 3 * leaseMs * MS; t += step) {
            boolean aServes = old.valid(a.at(t));
            boolean bShows = !next.quiet(b.at(t));
            if (aServes && bShows) {
                return t;
            }
        }
        return -1;
    }

    @Test
    void noMomentWhereTheOldLeaderServesAndTheNewShowsForClocksWithinTheBound() {
        SplittableRandom random = new SplittableRandom(20261206);
        for (int i = 0; i < 2_000; i++) {
            long leaseMs = random.nextLong(50, 1_001);
            // The extremes of the bound half of the time: they are where it is tight.
            long rateA = random.nextBoolean() ? 950_000 : random.nextLong(950_000, 1_050_001);
            long rateB = random.nextBoolean() ? 1_050_000 : random.nextLong(950_000, 1_050_001);
            Clock a = new Clock(random.nextLong(1L << 40), rateA);
            Clock b = new Clock(random.nextLong(1L << 40), rateB);
            // A's quiet period from its start is over at m; the election ends after m.
            long m = 2 * leaseMs * MS + random.nextLong(1, 1_000) * MS;
            long electionEnd = m + random.nextLong(1, 2 * leaseMs * MS);
            assertThat(overlap(leaseMs, a, b, m, electionEnd))
                    .as(
                            "lease %d ms, rates %d and %d ppm, election %d µs after the probe",
                            leaseMs, rateA, rateB, (electionEnd - m) / 1_000)
                    .isEqualTo(-1);
        }
    }

    @Test
    void aClockOutsideTheBoundCanBreakIt() {
        long leaseMs = 1_000;
        long m = 3_000 * MS;
        // A's clock runs at 90% of real time, B's at 110%, B elected right after the probe.
        long at = overlap(leaseMs, new Clock(0, 900_000), new Clock(0, 1_100_000), m, m + MS);
        assertThat(at).as("some moment where both hold").isPositive();
    }
}
