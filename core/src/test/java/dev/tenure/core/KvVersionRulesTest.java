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

/** Versions of KV entries and the compare-and-set writes that name one. */
class KvVersionRulesTest {
    private static final byte[] V = {1};

    private static Put putIf(long sid, long rid, String key, long ifVersion) {
        return new Put(sid, rid, key, V, null, 0, false, "", ifVersion, false);
    }

    private static Delete deleteIf(long sid, long rid, String key, long ifVersion) {
        return new Delete(sid, rid, key, null, 0, false, ifVersion);
    }

    private static long version(Fixture f, String key) {
        return ((KvValue) f.apply(new Get(key))).version();
    }

    @Test
    void aKeyStartsAtOneGainsOnePerPutAndStartsAgainAfterADelete() {
        Fixture f = new Fixture();
        assertThat(f.apply(new Put(0, 0, "k", V, null, 0))).isEqualTo(new Written(1));
        assertThat(f.apply(new Put(0, 0, "k", V, null, 0))).isEqualTo(new Written(2));
        assertThat(f.apply(new Put(0, 0, "k", V, null, 0))).isEqualTo(new Written(3));
        assertThat(version(f, "k")).isEqualTo(3);
        assertThat(f.apply(new Delete(0, 0, "k", null, 0))).isEqualTo(new Written(3));
        assertThat(f.apply(new Put(0, 0, "k", V, null, 0))).isEqualTo(new Written(1));
    }

    @Test
    void versionZeroCreatesOnlyAnAbsentKey() {
        Fixture f = new Fixture();
        assertThat(f.apply(putIf(0, 0, "k", 0))).isEqualTo(new Written(1));
        Rejected second = rejected(f.apply(putIf(0, 0, "k", 0)));
        assertThat(second)
                .isEqualTo(new Rejected(
                        Code.VERSION_MISMATCH, "version mismatch: the current version is 1; nothing changed", 1));
    }

    @Test
    void aMismatchChangesNothingAndNamesTheCurrentVersion() {
        Fixture f = new Fixture();
        f.apply(new Put(0, 0, "k", new byte[] {7}, null, 0));
        f.apply(new Put(0, 0, "k", new byte[] {8}, null, 0));
        assertThat(rejected(f.apply(putIf(0, 0, "k", 1))).currentToken()).isEqualTo(2);
        assertThat(rejected(f.apply(deleteIf(0, 0, "k", 3))).message())
                .isEqualTo("version mismatch: the current version is 2; nothing changed");
        KvValue v = (KvValue) f.apply(new Get("k"));
        assertThat(v.value()).containsExactly(8);
        assertThat(v.version()).isEqualTo(2);
        assertThat(f.apply(putIf(0, 0, "k", 2))).isEqualTo(new Written(3));
        assertThat(f.apply(deleteIf(0, 0, "k", 3))).isEqualTo(new Written(3));
        assertThat(code(f.apply(new Get("k")))).isEqualTo(Code.NOT_FOUND);
    }

    @Test
    void aConditionalDeleteOfAnAbsentKeyNamesVersionZero() {
        Fixture f = new Fixture();
        Rejected r = rejected(f.apply(deleteIf(0, 0, "k", 1)));
        assertThat(r.code()).isEqualTo(Code.VERSION_MISMATCH);
        assertThat(r.currentToken()).isZero();
        assertThat(rejected(f.apply(deleteIf(0, 0, "k", 0))).code()).isEqualTo(Code.NOT_FOUND);
    }

    @Test
    void ofTwoWritersThatReadTheSameVersionOnlyTheFirstInTheLogWins() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.apply(new Put(0, 0, "k", V, null, 0));
        assertThat(f.apply(putIf(a, 1, "k", 1))).isEqualTo(new Written(2));
        assertThat(rejected(f.apply(putIf(b, 1, "k", 1))).currentToken()).isEqualTo(2);
    }

    @Test
    void theFenceIsCheckedFirstAndBothChecksMustPass() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        assertThat(f.apply(new Put(a, 2, "k", V, "x", g.token(), false, "", 0, false)))
                .isEqualTo(new Written(1));
        // a stale token with the right version: the fence refuses, and says nothing of the version
        assertThat(code(f.apply(new Put(a, 3, "k", V, "x", g.token() + 1, false, "", 1, false))))
                .isEqualTo(Code.STALE_TOKEN);
        // the current token with a wrong version: the version refuses
        assertThat(code(f.apply(new Put(a, 4, "k", V, "x", g.token(), false, "", 5, false))))
                .isEqualTo(Code.VERSION_MISMATCH);
        assertThat(f.apply(new Put(a, 5, "k", V, "x", g.token(), false, "", 1, false)))
                .isEqualTo(new Written(2));
        assertThat(f.apply(new Delete(a, 6, "k", "x", g.token(), false, 2))).isEqualTo(new Written(2));
    }

    @Test
    void aRetriedWriteReturnsTheOriginalOutcomeAndDoesNotWriteAgain() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(f.apply(putIf(a, 1, "k", 0))).isEqualTo(new Written(1));
        assertThat(f.apply(putIf(a, 1, "k", 0))).isEqualTo(new Written(1)); // not a mismatch: the same request
        assertThat(version(f, "k")).isEqualTo(1);
        assertThat(rejected(f.apply(putIf(a, 2, "k", 7))).currentToken()).isEqualTo(1);
        f.apply(new Put(0, 0, "k", V, null, 0));
        assertThat(rejected(f.apply(putIf(a, 2, "k", 7))).currentToken()).isEqualTo(1); // the original refusal
        assertThat(f.apply(deleteIf(a, 3, "k", 2))).isEqualTo(new Written(2));
        assertThat(f.apply(deleteIf(a, 3, "k", 2))).isEqualTo(new Written(2));
    }

    @Test
    void versionsAndCachedWritesSurviveASnapshot() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.apply(new Put(0, 0, "k", V, null, 0));
        assertThat(f.apply(putIf(a, 1, "k", 1))).isEqualTo(new Written(2));
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), Limits.defaults());
        assertThat(((KvValue) restored.apply(f.now, new Get("k"))).version()).isEqualTo(2);
        assertThat(restored.apply(f.now, putIf(a, 1, "k", 1))).isEqualTo(new Written(2));
        assertThat(restored.snapshot()).isEqualTo(f.sm.snapshot());
    }
}
