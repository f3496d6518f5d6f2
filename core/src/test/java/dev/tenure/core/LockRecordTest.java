package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockRecordTest {
    private static Waiter waiter(long session) {
        return new Waiter(session, 1, 0, Waiter.NEVER, Policy.NONE);
    }

    @Test
    void waitersQueueInOrderAndTheQueueIsGoneWithTheLast() {
        LockRecord lock = new LockRecord("x");
        assertThat(lock.idle()).isTrue();
        lock.addWaiter(waiter(1));
        lock.addWaiter(waiter(2));
        lock.addWaiter(waiter(3));
        assertThat(lock.idle()).as("someone waits").isFalse();
        lock.removeWaiter(lock.findWaiter(2, 1));
        assertThat(lock.waiters()).extracting(Waiter::sessionId).containsExactly(1L, 3L);
        assertThat(lock.pollWaiter().sessionId()).isEqualTo(1);
        assertThat(lock.pollWaiter().sessionId()).isEqualTo(3);
        assertThat(lock.pollWaiter()).isNull();
        assertThat(lock.waiterCount()).isZero();
        assertThat(lock.idle()).isTrue();
        assertThatThrownBy(() -> lock.waiters().add(waiter(4))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void historyKeepsTheLatestUpToItsBound() {
        LockRecord lock = new LockRecord("x");
        assertThat(lock.lastTenure()).isNull();
        for (long token = 1; token <= 5; token++) {
            lock.addHistory(new TenureRecord(token, token, 0, 0, TenureEnd.RELEASED), 3);
        }
        assertThat(lock.history()).extracting(TenureRecord::token).containsExactly(3L, 4L, 5L);
        assertThat(lock.historySize()).isEqualTo(3);
        assertThat(lock.lastTenure().token()).isEqualTo(5);
        lock.addHistory(new TenureRecord(6, 6, 0, 0, TenureEnd.RELEASED), 0);
        assertThat(lock.history()).as("a bound of 0 keeps none").isEmpty();
    }
}
