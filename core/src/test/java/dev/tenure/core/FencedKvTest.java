package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.Written;
import org.junit.jupiter.api.Test;

class FencedKvTest {
    private static final byte[] V1 = {1};
    private static final byte[] V2 = {2, 2};

    private static KvValue value(Result r) {
        assertThat(r).isInstanceOf(KvValue.class);
        return (KvValue) r;
    }

    @Test
    void fencedPutIsAcceptedOnlyWithTheCurrentToken() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = f.grant(a, 1, "x");
        assertThat(f.apply(new Put(a, 2, "k", V1, "x", ga.token()))).isEqualTo(new Written(1));
        f.release(a, 3, "x", ga.token());
        Grant gb = f.grant(b, 1, "x");
        // a paused past its lease and writes late with its old token: refused, nothing changes
        Rejected stale = rejected(f.apply(new Put(a, 4, "k", V2, "x", ga.token())));
        assertThat(stale.code()).isEqualTo(Code.STALE_TOKEN);
        assertThat(stale.currentToken()).isEqualTo(gb.token());
        assertThat(stale.message()).contains("fence token " + ga.token()).contains("current token " + gb.token());
        KvValue v = value(f.apply(new Get("k")));
        assertThat(v.value()).containsExactly(V1);
        assertThat(v.token()).isEqualTo(ga.token());
        assertThat(v.lock()).isEqualTo("x");
        f.now += 5;
        assertThat(f.apply(new Put(0, 0, "k", V2, "x", gb.token())))
                .isEqualTo(new Written(2)); // token, not session, decides
        v = value(f.apply(new Get("k")));
        assertThat(v).extracting(KvValue::token, KvValue::writtenAtMs).containsExactly(gb.token(), f.now);
    }

    @Test
    void anUnfencedWriteToAKeyLastWrittenFencedIsRefusedNamingTheLock() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.apply(new Put(a, 2, "k", V1, "x", g.token()));
        Rejected expected = new Rejected(
                Code.KEY_FENCED,
                "key k was last written fenced by lock x (token " + g.token() + "): write it with the lock's"
                        + " current token, or override the fence explicitly to write it unfenced",
                0);
        assertThat(f.apply(new Put(0, 0, "k", V2, null, 0))).isEqualTo(expected);
        assertThat(f.apply(new Put(a, 3, "k", V2, null, 0))).isEqualTo(expected);
        assertThat(f.apply(new Delete(0, 0, "k", null, 0))).isEqualTo(expected);
        // A retry: the first answer, its message cut to what a session's cache keeps of it.
        Rejected retried = (Rejected) f.apply(new Put(a, 3, "k", V2, null, 0, true));
        assertThat(retried.code()).isEqualTo(expected.code());
        assertThat(retried.message())
                .hasSize(Outcome.MESSAGE_CHARS_MAX)
                .startsWith(expected.message().substring(0, Outcome.MESSAGE_CHARS_MAX - 1));
        // nothing changed, and it is not a stale write: no token was presented
        KvValue v = value(f.apply(new Get("k")));
        assertThat(v).extracting(KvValue::token, KvValue::lock).containsExactly(g.token(), "x");
        assertThat(v.value()).containsExactly(V1);
        assertThat(((Result.Stats) f.apply(new Command.Stats())).staleWritesRejected())
                .isZero();
        // the key stays fenced after its lock is released: the next holder writes it fenced
        f.release(a, 4, "x", g.token());
        assertThat(code(f.apply(new Put(0, 0, "k", V2, null, 0)))).isEqualTo(Code.KEY_FENCED);
    }

    @Test
    void theExplicitOverrideWritesAFencedKeyUnfencedAndOnlyThen() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.apply(new Put(a, 2, "k", V1, "x", g.token()));
        f.apply(new Put(a, 3, "j", V1, "x", g.token()));
        assertThat(f.apply(new Put(0, 0, "k", V2, null, 0, true))).isEqualTo(new Written(2));
        KvValue v = value(f.apply(new Get("k")));
        assertThat(v).extracting(KvValue::token, KvValue::lock).containsExactly(0L, null);
        assertThat(f.apply(new Put(0, 0, "k", V1, null, 0)))
                .isEqualTo(new Written(3)); // unfenced now: no override needed
        assertThat(f.apply(new Delete(a, 4, "j", null, 0, true))).isEqualTo(new Written(1));
        assertThat(code(f.apply(new Get("j")))).isEqualTo(Code.NOT_FOUND);
        // the override never weakens a fenced write: its token is still checked
        Rejected stale = rejected(f.apply(new Put(0, 0, "k", V2, "x", g.token() + 1, true)));
        assertThat(stale.code()).isEqualTo(Code.STALE_TOKEN);
        assertThat(stale.currentToken()).isEqualTo(g.token());
    }

    @Test
    void aFencedWriteTakesOverAnUnfencedKeyAndAFencedDeleteFreesIt() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.apply(new Put(0, 0, "k", V1, null, 0));
        assertThat(f.apply(new Put(a, 2, "k", V2, "x", g.token()))).isEqualTo(new Written(2));
        assertThat(code(f.apply(new Put(0, 0, "k", V1, null, 0)))).isEqualTo(Code.KEY_FENCED);
        assertThat(f.apply(new Delete(a, 3, "k", "x", g.token()))).isEqualTo(new Written(2)); // the version it had
        // deleted: no record keeps the fence, so an unfenced write starts the key afresh
        assertThat(f.apply(new Put(0, 0, "k", V1, null, 0))).isEqualTo(new Written(1));
        assertThat(value(f.apply(new Get("k"))).token()).isZero();
    }

    @Test
    void fencedWriteOnAFreeOrUnknownLockIsStale() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.release(a, 2, "x", g.token());
        assertThat(rejected(f.apply(new Put(0, 0, "k", V1, "x", g.token()))).currentToken())
                .isZero();
        assertThat(code(f.apply(new Put(0, 0, "k", V1, "x", 0)))).isEqualTo(Code.STALE_TOKEN);
        assertThat(code(f.apply(new Put(0, 0, "k", V1, "never", 0)))).isEqualTo(Code.STALE_TOKEN);
        assertThat(code(f.apply(new Get("k")))).isEqualTo(Code.NOT_FOUND);
    }

    @Test
    void unfencedPutStoresTokenZeroAndCopiesTheValue() {
        Fixture f = new Fixture();
        byte[] mine = {7, 7};
        assertThat(f.apply(new Put(0, 0, "k", mine, null, 55))).isEqualTo(new Written(1));
        mine[0] = 0;
        KvValue v = value(f.apply(new Get("k")));
        assertThat(v.value()).containsExactly(7, 7);
        assertThat(v.token()).isZero();
        assertThat(v.lock()).isNull();
        v.value()[1] = 0;
        assertThat(value(f.apply(new Get("k"))).value()).containsExactly(7, 7);
    }

    @Test
    void fencedDeleteChecksTheFenceBeforeExistence() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        assertThat(code(f.apply(new Delete(a, 2, "missing", "x", g.token() + 1))))
                .isEqualTo(Code.STALE_TOKEN);
        assertThat(code(f.apply(new Delete(a, 3, "missing", "x", g.token())))).isEqualTo(Code.NOT_FOUND);
        f.apply(new Put(a, 4, "k", V1, null, 0));
        assertThat(code(f.apply(new Delete(a, 5, "k", "x", 99)))).isEqualTo(Code.STALE_TOKEN);
        assertThat(f.apply(new Get("k"))).isInstanceOf(KvValue.class);
        assertThat(f.apply(new Delete(a, 6, "k", "x", g.token()))).isEqualTo(new Written(1));
        assertThat(code(f.apply(new Get("k")))).isEqualTo(Code.NOT_FOUND);
        assertThat(f.apply(new Delete(a, 6, "k", "x", g.token()))).isEqualTo(new Written(1)); // retry: original result
        assertThat(f.apply(new Delete(0, 0, "k", null, 0))).isInstanceOf(Rejected.class);
    }

    @Test
    void retriedPutReturnsTheOriginalResultAndDoesNotWriteAgain() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.apply(new Put(a, 1, "k", V1, null, 0));
        f.apply(new Put(a, 2, "k", V2, null, 0));
        assertThat(f.apply(new Put(a, 1, "k", V1, null, 0))).isEqualTo(new Written(1));
        assertThat(value(f.apply(new Get("k"))).value()).containsExactly(V2);
        assertThat(code(f.apply(new Put(a + 1, 1, "k", V1, null, 0)))).isEqualTo(Code.SESSION_LOST);
        assertThat(code(f.apply(new Put(a, 0, "k", V1, null, 0)))).isEqualTo(Code.INVALID);
    }

    @Test
    void shapesAndKeyLimit() {
        Fixture f = new Fixture(Fixture.small()); // keyBytesMax 8, valueBytesMax 4, kvKeysMax 2
        assertThat(rejected(f.apply(new Put(0, 0, "123456789", V1, null, 0))).message())
                .contains("keyBytesMax");
        assertThat(rejected(f.apply(new Put(0, 0, "k", new byte[5], null, 0))).message())
                .contains("valueBytesMax");
        assertThat(code(f.apply(new Put(0, 0, "k", null, null, 0)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Put(0, 0, "", V1, null, 0)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Put(0, 0, "k", V1, "", 1)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Get(null)))).isEqualTo(Code.INVALID);
        f.apply(new Put(0, 0, "a", V1, null, 0));
        f.apply(new Put(0, 0, "b", V1, null, 0));
        Rejected full = rejected(f.apply(new Put(0, 0, "c", V1, null, 0)));
        assertThat(full.code()).isEqualTo(Code.LIMIT);
        assertThat(full.message()).contains("kvKeysMax (2)");
        assertThat(f.apply(new Put(0, 0, "b", new byte[4], null, 0))).isEqualTo(new Written(2)); // overwrite is fine
    }
}
