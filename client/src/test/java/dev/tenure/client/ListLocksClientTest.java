package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Holder;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.ListedLock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listing's client side: pages fetched lazily, each after the last name of the one before. */
class ListLocksClientTest {
    private final Harness h = new Harness(1);
    private final List<ListLocksRequest> asked = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    /** Serves names n0..n(count-1) under "n", two per page. */
    private void serve(int count) {
        h.fake.onListLocks = r -> {
            asked.add(r);
            ListLocksResponse.Builder b =
                    ListLocksResponse.newBuilder().setCode(Code.CODE_OK).setNowMs(7);
            int from =
                    r.getAfter().isEmpty() ? 0 : Integer.parseInt(r.getAfter().substring(1)) + 1;
            int to = Math.min(count, from + 2);
            for (int i = from; i < to; i++) {
                b.addLocks(ListedLock.newBuilder()
                        .setLock("n" + i)
                        .setWaiters(i)
                        .setHolder(Holder.newBuilder()
                                .setSessionId(3)
                                .setToken(100 + i)
                                .setSinceMs(5)));
            }
            return b.setMore(to < count).build();
        };
    }

    @Test
    void theStreamFetchesPagesOnlyAsItIsConsumed() {
        serve(5);
        Stream<dev.tenure.client.ListedLock> locks = h.client().listLocks("n", 2);
        assertThat(asked).as("nothing before the stream is consumed").isEmpty();
        assertThat(locks.limit(3).map(dev.tenure.client.ListedLock::lock)).containsExactly("n0", "n1", "n2");
        assertThat(asked).extracting(ListLocksRequest::getAfter).containsExactly("", "n1");
        assertThat(asked).extracting(ListLocksRequest::getPrefix).containsOnly("n");
        assertThat(asked).extracting(ListLocksRequest::getLimit).containsOnly(2);
    }

    @Test
    void theStreamListsEveryPageOnceAndStopsWhenNoMoreFollow() {
        serve(5);
        List<dev.tenure.client.ListedLock> all = h.client().listLocks("").toList();
        assertThat(all).extracting(dev.tenure.client.ListedLock::lock).containsExactly("n0", "n1", "n2", "n3", "n4");
        assertThat(asked).extracting(ListLocksRequest::getAfter).containsExactly("", "n1", "n3");
        assertThat(asked).extracting(ListLocksRequest::getLimit).containsOnly(0);
        dev.tenure.client.ListedLock n4 = all.get(4);
        assertThat(n4.waiters()).isEqualTo(4);
        assertThat(n4.holder().orElseThrow().token()).isEqualTo(104);
        assertThat(n4.holder().orElseThrow().since()).isEqualTo(Instant.ofEpochMilli(5));
        assertThat(n4.delayUntil()).isEqualTo(Optional.empty());
    }

    @Test
    void aPageCallReturnsOnePageAndWhereTheNextStarts() {
        serve(3);
        dev.tenure.client.ListedLock.Page page = h.client().listLocks("n", "n0", 2);
        assertThat(page.locks()).extracting(dev.tenure.client.ListedLock::lock).containsExactly("n1", "n2");
        assertThat(page.more()).isFalse();
        assertThat(page.now()).isEqualTo(Instant.ofEpochMilli(7));
        assertThat(page.nextAfter("n0")).isEqualTo("n2");
    }

    @Test
    void aRefusedPageIsATypedRejection() {
        h.fake.onListLocks = r -> ListLocksResponse.newBuilder()
                .setCode(Code.CODE_INVALID)
                .setMessage("limit and bytesMax must be positive")
                .build();
        assertThatThrownBy(() -> h.client().listLocks("").toList())
                .isInstanceOfSatisfying(
                        TenureException.class,
                        e -> assertThat(e.code()).isEqualTo(TenureException.Code.INVALID_REQUEST));
    }
}
