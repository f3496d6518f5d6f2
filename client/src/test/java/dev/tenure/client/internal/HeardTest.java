package dev.tenure.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeardTest {
    private static final long BASE = 300;

    @Test
    void aConnectionThatHasHeardAnythingIsJudgedAtTheBaseTime() {
        Heard heard = new Heard(0, 2);
        heard.at(5);
        assertThat(heard.heardAny()).isTrue();
        assertThat(heard.silenceNanos(BASE)).isEqualTo(BASE);
        assertThat(heard.silentPredecessorsAfter())
                .as("an answered connection ends the run")
                .isZero();
    }

    @Test
    void aNewConnectionThatHasHeardNothingWaitsTwiceAndMoreForEachSilentPredecessor() {
        assertThat(new Heard(0).silenceNanos(BASE)).isEqualTo(2 * BASE);
        assertThat(new Heard(0, 1).silenceNanos(BASE)).isEqualTo(4 * BASE);
        assertThat(new Heard(0, 2).silenceNanos(BASE)).isEqualTo(8 * BASE);
        assertThat(new Heard(0, 7).silenceNanos(BASE)).as("at most eight times").isEqualTo(8 * BASE);
        assertThat(new Heard(0, 1).silentPredecessorsAfter()).isEqualTo(2);
    }

    @Test
    void somethingArrivingAtTheStartInstantStillCounts() {
        Heard heard = new Heard(10);
        heard.at(10);
        assertThat(heard.heardAny()).isTrue();
        assertThat(heard.lastNanos()).isEqualTo(10);
    }
}
