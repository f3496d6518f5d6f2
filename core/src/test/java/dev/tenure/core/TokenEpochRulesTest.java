package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import org.junit.jupiter.api.Test;

class TokenEpochRulesTest {

    private static final long EPOCH_1 = 281_474_976_710_656L; // 2^48

    @Test
    void epochsAreTheHighSixteenBits() {
        assertThat(TokenEpoch.TOKENS_PER_EPOCH_MAX).isEqualTo(EPOCH_1);
        assertThat(TokenEpoch.epoch(0)).isEqualTo(0);
        assertThat(TokenEpoch.epoch(EPOCH_1 - 1)).isEqualTo(0);
        assertThat(TokenEpoch.epoch(EPOCH_1)).isEqualTo(1);
        assertThat(TokenEpoch.last(1)).isEqualTo(281_474_976_710_655L);
        assertThat(TokenEpoch.last(EPOCH_1)).isEqualTo(562_949_953_421_311L);
        assertThat(TokenEpoch.hasNext(EPOCH_1 - 2)).isTrue();
        assertThat(TokenEpoch.hasNext(EPOCH_1 - 1)).isFalse();
    }

    @Test
    void floorIsTheStartOfTheNextEpoch() {
        assertThat(TokenEpoch.floorAfter(0)).isEqualTo(EPOCH_1);
        assertThat(TokenEpoch.floorAfter(57)).isEqualTo(EPOCH_1);
        assertThat(TokenEpoch.floorAfter(EPOCH_1 - 1)).isEqualTo(EPOCH_1);
        assertThat(TokenEpoch.floorAfter(EPOCH_1)).isEqualTo(2 * EPOCH_1);
        assertThat(TokenEpoch.floorAfter(EPOCH_1 + 9)).isEqualTo(562_949_953_421_312L);
        // Epoch 32766 is the last one with a next: 32767 starts at 2^63 - 2^48.
        assertThat(TokenEpoch.floorAfter(32_766 * EPOCH_1)).isEqualTo(9_223_090_561_878_065_152L);
        assertThatThrownBy(() -> TokenEpoch.floorAfter(Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("token 9223372036854775807 is in the last token epoch (32767): there is no next epoch"
                        + " to start a restored cluster in");
        assertThatThrownBy(() -> TokenEpoch.floorAfter(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void restoredCounterStartsAboveTheFloor() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.grant(a, 1, "x");
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), Limits.defaults());
        restored.raiseTokenFloor(TokenEpoch.floorAfter(restored.lastToken()));
        assertThat(restored.lastToken()).isEqualTo(EPOCH_1);
        assertThatThrownBy(() -> restored.raiseTokenFloor(5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("token floor 5 is below the last token issued, 281474976710656");
        Fixture g = new Fixture();
        g.sm.raiseTokenFloor(EPOCH_1);
        long b = g.open(1_000);
        assertThat(g.grant(b, 1, "y").token()).isEqualTo(EPOCH_1 + 1);
    }

    @Test
    void noGrantPastTheEndOfTheEpoch() {
        Fixture f = new Fixture();
        f.sm.raiseTokenFloor(EPOCH_1 - 3);
        long a = f.open(10_000);
        long b = f.open(10_000);
        assertThat(f.grant(a, 1, "x").token()).isEqualTo(EPOCH_1 - 2);
        // b waits for x; the last token of the epoch goes to y.
        assertThat(f.apply(new Acquire(b, 1, "x", 5_000))).isInstanceOf(Queued.class);
        assertThat(f.grant(a, 2, "y").token()).isEqualTo(EPOCH_1 - 1);
        assertThat(f.apply(new Acquire(a, 3, "z", 0)))
                .isEqualTo(new Rejected(
                        Code.LIMIT,
                        "tokensPerEpochMax (281474976710656) reached: token 281474976710655 ends epoch 0; a backup"
                                + " restored with a new token floor moves the cluster on (docs/fencing.md)",
                        0));
        // Released, x is not handed to its waiter, whose wait is refused: a grant would take a token of epoch 1.
        f.events();
        f.release(a, 4, "x", EPOCH_1 - 2);
        assertThat(f.events())
                .filteredOn(e -> e instanceof Event.WaitResolved)
                .extracting(e -> ((Event.WaitResolved) e).result())
                .containsExactly(TokenEpoch.exhausted(EPOCH_1 - 1));
        assertThat(f.sm.lastToken()).isEqualTo(EPOCH_1 - 1);
        assertThat(f.apply(new Acquire(a, 5, "x", 0))).isNotInstanceOf(Granted.class);
        f.sm.checkInvariants();
    }
}
