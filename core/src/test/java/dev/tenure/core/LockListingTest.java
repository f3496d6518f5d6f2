package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.ListLocks;
import dev.tenure.core.Command.Stats;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Holder;
import dev.tenure.core.Result.LockEntry;
import dev.tenure.core.Result.LockList;
import dev.tenure.core.Result.Queued;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockListingTest {
    private static final long NO_BYTE_BOUND = Long.MAX_VALUE;

    private static LockList list(Fixture f, String prefix, String after, int limit, long bytesMax) {
        Result r = f.apply(new ListLocks(prefix, after, limit, bytesMax));
        assertThat(r).isInstanceOf(LockList.class);
        return (LockList) r;
    }

    private static List<String> names(LockList page) {
        return page.locks().stream().map(LockEntry::lock).toList();
    }

    @Test
    void listsHeldLocksInNameOrderWithHolderAndWaiterCount() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "alpha");
        long b = f.open(1_000, "beta");
        f.grant(a, 1, "m");
        Grant z = f.grant(b, 1, "z");
        f.now += 10;
        Grant c = f.grant(a, 2, "c");
        assertThat(f.apply(new Acquire(b, 2, "c", -1))).isInstanceOf(Queued.class);

        LockList page = list(f, "", "", 10, NO_BYTE_BOUND);

        assertThat(names(page)).containsExactly("c", "m", "z");
        assertThat(page.locks().get(0))
                .isEqualTo(new LockEntry(
                        "c", List.of(new Holder(a, c.token(), 1_010, "alpha", Policy.NONE, Long.MAX_VALUE, "")), 1, 0));
        assertThat(page.locks().get(2).holder().sessionId()).isEqualTo(b);
        assertThat(page.locks().get(2).holder().token()).isEqualTo(z.token());
        assertThat(page.locks().get(2).waiters()).isZero();
        assertThat(page.more()).isFalse();
        assertThat(page.nowMs()).isEqualTo(1_010);
    }

    /**
     * A semaphore or a shared lock is listed with every current lease, oldest first; its holder is
     * the oldest, as a plain lock's is its one lease. Each lease counts against the page's bytes.
     */
    @Test
    void aLockWithSeveralLeasesListsEveryHolderOldestFirst() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "alpha");
        long b = f.open(1_000, "beta");
        long c = f.open(1_000, "gamma");
        Grant ga = ((Granted) f.apply(new Acquire(a, 1, "sem", 0, Policy.NONE, 0, 2, false))).grant();
        f.now += 5;
        Grant gb = ((Granted) f.apply(new Acquire(b, 1, "sem", 0, Policy.NONE, 0, 2, false))).grant();
        Grant sa = ((Granted) f.apply(new Acquire(a, 2, "shared", 0, Policy.NONE, 0, 1, true))).grant();
        Grant sc = ((Granted) f.apply(new Acquire(c, 1, "shared", 0, Policy.NONE, 0, 1, true))).grant();
        assertThat(f.apply(new Acquire(c, 2, "sem", -1, Policy.NONE, 0, 2, false)))
                .isInstanceOf(Queued.class);

        LockList page = list(f, "", "", 10, NO_BYTE_BOUND);

        assertThat(page.locks())
                .containsExactly(
                        new LockEntry(
                                "sem",
                                List.of(
                                        new Holder(a, ga.token(), 1_000, "alpha", Policy.NONE, Long.MAX_VALUE, ""),
                                        new Holder(b, gb.token(), 1_005, "beta", Policy.NONE, Long.MAX_VALUE, "")),
                                1,
                                0),
                        new LockEntry(
                                "shared",
                                List.of(
                                        new Holder(
                                                a, sa.token(), 1_005, "alpha", Policy.NONE, Long.MAX_VALUE, "", true),
                                        new Holder(
                                                c, sc.token(), 1_005, "gamma", Policy.NONE, Long.MAX_VALUE, "", true)),
                                0,
                                0));
        assertThat(page.locks().get(0).holder())
                .isEqualTo(page.locks().get(0).holders().get(0));
        // 160 + "sem" (3) + "alpha" (5) for the entry and its holder, then 100 + client name per lease.
        assertThat(LockListing.entryBytes(page.locks().get(0))).isEqualTo(160 + 3 + 5 + (100 + 5) + (100 + 4));
    }

    @Test
    void aFreedLockIsNotListedAndAnEmptyTableListsNothing() {
        Fixture f = new Fixture();
        assertThat(list(f, "", "", 10, NO_BYTE_BOUND)).isEqualTo(new LockList(List.of(), false, 1_000));
        long a = f.open(1_000);
        Grant x = f.grant(a, 1, "x");
        f.grant(a, 2, "y");
        f.release(a, 3, "x", x.token());
        // x is kept for its history (idle), but is neither held, waited for nor delayed.
        assertThat(names(list(f, "", "", 10, NO_BYTE_BOUND))).containsExactly("y");
    }

    @Test
    void aPrefixListsExactlyTheNamesThatStartWithIt() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        int rid = 1;
        for (String n : List.of("a", "ab", "ab/1", "ab/2", "abc", "ac", "b")) {
            f.grant(a, rid++, n);
        }
        assertThat(names(list(f, "ab", "", 10, NO_BYTE_BOUND))).containsExactly("ab", "ab/1", "ab/2", "abc");
        assertThat(names(list(f, "ab/", "", 10, NO_BYTE_BOUND))).containsExactly("ab/1", "ab/2");
        assertThat(names(list(f, "a", "", 10, NO_BYTE_BOUND))).containsExactly("a", "ab", "ab/1", "ab/2", "abc", "ac");
        assertThat(names(list(f, "abd", "", 10, NO_BYTE_BOUND))).isEmpty();
        assertThat(names(list(f, "0", "", 10, NO_BYTE_BOUND))).isEmpty();
    }

    @Test
    void aCursorResumesStrictlyAfterItsNameWithinThePrefix() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        int rid = 1;
        for (String n : List.of("a", "ab", "ab/1", "ab/2", "abc", "b")) {
            f.grant(a, rid++, n);
        }
        assertThat(names(list(f, "ab", "ab/1", 10, NO_BYTE_BOUND))).containsExactly("ab/2", "abc");
        // A cursor that is no lock's name still resumes after where it would sort.
        assertThat(names(list(f, "", "ab/10", 10, NO_BYTE_BOUND))).containsExactly("ab/2", "abc", "b");
        // A cursor before the prefix starts at the prefix; one past it lists nothing.
        assertThat(names(list(f, "ab", "a", 10, NO_BYTE_BOUND))).containsExactly("ab", "ab/1", "ab/2", "abc");
        assertThat(names(list(f, "ab", "abd", 10, NO_BYTE_BOUND))).isEmpty();
    }

    @Test
    void aPageStopsAtItsCountAndSaysThatMoreFollow() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        for (int i = 0; i < 5; i++) {
            f.grant(a, i + 1, "k" + i);
        }
        LockList first = list(f, "", "", 2, NO_BYTE_BOUND);
        assertThat(names(first)).containsExactly("k0", "k1");
        assertThat(first.more()).isTrue();
        LockList last = list(f, "", "k3", 2, NO_BYTE_BOUND);
        assertThat(names(last)).containsExactly("k4");
        assertThat(last.more()).isFalse();
        // Exactly full: nothing after it, so no more.
        assertThat(list(f, "", "k2", 2, NO_BYTE_BOUND).more()).isFalse();
    }

    @Test
    void aPageStopsAtItsByteBoundButAlwaysCarriesOneLock() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "cl");
        f.grant(a, 1, "aaaa");
        f.grant(a, 2, "bb");
        f.grant(a, 3, "c");
        // Each entry: 160 fixed + name + client name "cl" (2) + principal "" (0), and its one
        // lease again among the holders: 100 fixed + "cl" (2).
        long aaaa = LockListing.ENTRY_FIXED_BYTES + 4 + 2 + LockListing.HOLDER_FIXED_BYTES + 2;
        long bb = LockListing.ENTRY_FIXED_BYTES + 2 + 2 + LockListing.HOLDER_FIXED_BYTES + 2;
        assertThat(names(list(f, "", "", 10, aaaa + bb))).containsExactly("aaaa", "bb");
        assertThat(list(f, "", "", 10, aaaa + bb).more()).isTrue();
        assertThat(names(list(f, "", "", 10, aaaa + bb - 1))).containsExactly("aaaa");
        assertThat(names(list(f, "", "", 10, 1))).containsExactly("aaaa");
        assertThat(list(f, "", "", 10, 1).more()).isTrue();
    }

    @Test
    void pagingFromEachLastNameListsEveryLockOnceInOrder() {
        Fixture f = new Fixture();
        List<String> expected = new ArrayList<>();
        int rid = 1;
        long s = f.open(1_000);
        for (int i = 0; i < 250; i++) {
            if (i % 200 == 199) {
                s = f.open(1_000);
            }
            String name = String.format("job/%04d", (i * 37) % 250);
            f.grant(s, rid++, name);
        }
        for (int i = 0; i < 250; i++) {
            expected.add(String.format("job/%04d", i));
        }
        List<String> seen = new ArrayList<>();
        String after = "";
        int pages = 0;
        while (true) {
            LockList page = list(f, "job/", after, 7, NO_BYTE_BOUND);
            seen.addAll(names(page));
            pages++;
            if (!page.more()) {
                break;
            }
            after = seen.get(seen.size() - 1);
        }
        assertThat(seen).isEqualTo(expected);
        assertThat(pages).isEqualTo(36);
    }

    @Test
    void listingChangesNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.grant(a, 1, "x");
        Result before = f.apply(new Stats());
        list(f, "", "", 1, 1);
        assertThat(f.apply(new Stats())).isEqualTo(before);
    }

    @Test
    void malformedPagesAreRefused() {
        Fixture f = new Fixture(Fixture.small());
        assertThat(code(f.apply(new ListLocks("", "", 0, 100)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new ListLocks("", "", 1, 0)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new ListLocks(null, "", 1, 100)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new ListLocks("123456789", "", 1, 100)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new ListLocks("", "123456789", 1, 100)))).isEqualTo(Code.INVALID);
    }
}
