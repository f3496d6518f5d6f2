package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.SetLimits;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Rejected;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The limits are replicated state: the log sets them, and a replay decides under the ones it set. */
class LimitsRulesTest {
    private static final Limits TEN_KEYS = Limits.defaults().with("kvKeysMax", 10);
    private static final Limits FIVE_KEYS = Limits.defaults().with("kvKeysMax", 5);

    private static SetLimits set(Limits limits, boolean change, int nodeId) {
        return SetLimits.of(limits, new TreeMap<>(), change, nodeId);
    }

    private static Put put(long session, long requestId, String key) {
        return new Put(session, requestId, key, "v".getBytes(StandardCharsets.UTF_8), null, 0);
    }

    @Test
    void theFirstLimitsInTheLogAreTheClustersWhateverTheReplicaWasGiven() {
        Fixture f = new Fixture(FIVE_KEYS);
        assertThat(f.sm.limitsRecorded()).isFalse();
        assertThat(f.apply(set(TEN_KEYS, false, 1))).isInstanceOf(Ok.class);
        assertThat(f.sm.limitsRecorded()).isTrue();
        assertThat(f.sm.limits()).isEqualTo(TEN_KEYS);
    }

    @Test
    void aMemberGivenOtherLimitsIsRefusedNamingBothValuesAndNothingChanges() {
        Fixture f = new Fixture(TEN_KEYS);
        f.apply(set(TEN_KEYS, false, 0));
        Result r = f.apply(set(FIVE_KEYS, false, 2));
        assertThat(r).isInstanceOf(Rejected.class);
        assertThat(((Rejected) r).code()).isEqualTo(Code.INVALID);
        assertThat(((Rejected) r).message())
                .isEqualTo(
                        "node 2 was given limits that differ from the cluster's: kvKeysMax: node 2 has 5, the cluster 10");
        assertThat(f.sm.limits()).isEqualTo(TEN_KEYS);
        assertThat(f.apply(set(TEN_KEYS, false, 1))).isInstanceOf(Ok.class);
    }

    @Test
    void aChangeBelowWhatTheStateHoldsIsRefusedAndOneThatFitsIsInForce() {
        Fixture f = new Fixture(TEN_KEYS);
        f.apply(set(TEN_KEYS, false, 0));
        long s = f.open(10_000);
        for (int i = 1; i <= 8; i++) {
            assertThat(f.apply(put(s, i, "k" + i))).isEqualTo(new Result.Written(1));
        }
        Result lowered = f.apply(set(FIVE_KEYS, true, 0));
        assertThat(((Rejected) lowered).code()).isEqualTo(Code.LIMIT);
        assertThat(((Rejected) lowered).message())
                .isEqualTo("node 0's limits (kvKeysMax: node 0 has 5, the cluster 10) hold less than the state"
                        + " already does: 8 keys over kvKeysMax; nothing changed");
        assertThat(f.sm.limits()).isEqualTo(TEN_KEYS);
        Limits eight = Limits.defaults().with("kvKeysMax", 8);
        assertThat(f.apply(set(eight, true, 0))).isInstanceOf(Ok.class);
        assertThat(f.sm.limits()).isEqualTo(eight);
        assertThat(((Rejected) f.apply(put(s, 9, "k9"))).message()).startsWith("kvKeysMax (8) reached");
    }

    /**
     * The restart of issue 31: a member restarted with kvKeysMax lowered from 10 to 5 replays the
     * log of eight acknowledged puts. Under its own limit the sixth would be refused; under the
     * limits the log set it lands, as its client was told.
     */
    @Test
    void aReplayDecidesUnderTheLimitsTheLogSetNotTheRestartedMembers() {
        List<Command> log = new ArrayList<>();
        log.add(set(TEN_KEYS, false, 0));
        log.add(new Command.OpenSession(10_000, "c"));
        for (int i = 1; i <= 8; i++) {
            log.add(put(1, i, "k" + i));
        }
        List<Result> acknowledged = replay(log, TEN_KEYS);
        assertThat(acknowledged.subList(2, 10)).allMatch(r -> r.equals(new Result.Written(1)));

        assertThat(replay(log, FIVE_KEYS)).isEqualTo(acknowledged);
    }

    @Test
    void theLimitsTheLogSetSurviveASnapshotRestoredWithOtherOnes() {
        Fixture f = new Fixture(TEN_KEYS);
        TreeMap<String, PrincipalLimits> quotas = new TreeMap<>();
        quotas.put("batch", Limits.defaults().with("kvKeysPerPrincipalMax", 3).principal());
        f.apply(SetLimits.of(TEN_KEYS, quotas, false, 0));
        byte[] snapshot = f.sm.snapshot();

        StateMachine restored = StateMachine.restore(snapshot, FIVE_KEYS);
        assertThat(restored.limitsRecorded()).isTrue();
        assertThat(restored.limits()).isEqualTo(TEN_KEYS);
        assertThat(restored.snapshot()).isEqualTo(snapshot);
        assertThat(restored.apply(2_000, SetLimits.of(TEN_KEYS, quotas, false, 1)))
                .isInstanceOf(Ok.class);
        assertThat(((Rejected) restored.apply(2_000, set(TEN_KEYS, false, 1))).message())
                .isEqualTo("node 1 was given limits that differ from the cluster's: kvKeysPerPrincipalMax of"
                        + " principal batch: node 1 has 10000, the cluster 3");
    }

    @Test
    void unknownNamesAndValuesOutOfRangeAreRefusedAndChangeNothing() {
        Fixture f = new Fixture(TEN_KEYS);
        TreeMap<String, Long> bad = new TreeMap<>(TEN_KEYS.values());
        bad.put("kvKeysMaks", 3L);
        Rejected r = (Rejected) f.apply(new SetLimits(bad, new TreeMap<>(), false, 1));
        assertThat(r.code()).isEqualTo(Code.INVALID);
        assertThat(r.message()).startsWith("node 1's limits: no limit named kvKeysMaks");
        bad = new TreeMap<>(TEN_KEYS.values());
        bad.put("sessionsMax", -1L);
        assertThat(((Rejected) f.apply(new SetLimits(bad, new TreeMap<>(), false, 1))).code())
                .isEqualTo(Code.INVALID);
        assertThat(f.sm.limitsRecorded()).isFalse();
    }

    private static List<Result> replay(List<Command> log, Limits given) {
        StateMachine sm = new StateMachine(given);
        sm.setFullInvariantChecks(true);
        List<Result> results = new ArrayList<>();
        long now = 1_000;
        for (Command c : log) {
            results.add(sm.apply(now++, c));
        }
        return results;
    }
}
