package dev.tenure.core;

import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.SetLimits;
import dev.tenure.core.Command.WriteCheckpoint;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.SessionOpened;
import java.nio.charset.StandardCharsets;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What a principal causes counts against its quota: the lock delays its leases leave, and the
 * checkpoints it writes; and a principal's own quota, from the ACL, reaches the state through the
 * log like every limit.
 */
class QuotaChargesTest {
    /** Three leases and 10 checkpoint bytes per principal. */
    private static final Limits TIGHT =
            Limits.defaults().with("leasesPerPrincipalMax", 3).with("checkpointTotalBytesPerPrincipalMax", 10);

    private final Fixture f = new Fixture(TIGHT);

    private long open(String principal) {
        return ((SessionOpened) f.apply(new OpenSession(600_000, "c", SecretHash.NONE, principal))).sessionId();
    }

    private long grant(long session, long requestId, String lock, Policy policy) {
        return ((Granted) f.apply(new Acquire(session, requestId, lock, 0, policy)))
                .grant()
                .token();
    }

    private static byte[] bytes(int n) {
        return "x".repeat(n).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void locksInTheLockDelayAPrincipalsLeasesLeftCountAgainstItsLeases() {
        Policy delayed = Policy.of(60_000, 0, 0);
        long a = open("p");
        for (int i = 1; i <= 3; i++) {
            grant(a, i, "l" + i, delayed);
        }
        f.apply(new CloseSession(a, TenureEnd.DISCONNECTED));
        long b = open("p");
        Result.Rejected r = rejected(f.apply(new Acquire(b, 1, "other", 0)));
        assertThat(r.code()).isEqualTo(Code.LIMIT);
        assertThat(r.message())
                .isEqualTo("leasesPerPrincipalMax (3) reached by principal p (3 of them locks in the lock delay"
                        + " its leases left)");
        assertThat(f.apply(new Acquire(open("q"), 1, "other", 0)))
                .as("another principal is not held back")
                .isInstanceOf(Granted.class);

        byte[] snapshot = f.sm.snapshot();
        StateMachine restored = StateMachine.restore(snapshot, TIGHT);
        assertThat(rejected(restored.apply(f.now, new Acquire(b, 2, "other2", 0)))
                        .message())
                .as("the charge survives a snapshot")
                .startsWith("leasesPerPrincipalMax (3) reached by principal p (3 of them");

        f.advanceTo(f.now + 60_000);
        assertThat(f.apply(new Acquire(b, 2, "other2", 0))).isInstanceOf(Granted.class);
    }

    @Test
    void checkpointsCountAgainstThePrincipalThatWroteThem() {
        long a = open("p");
        long x = grant(a, 1, "x", Policy.NONE);
        long y = grant(a, 2, "y", Policy.NONE);
        assertThat(f.apply(new WriteCheckpoint(a, 3, "x", x, bytes(8)))).isInstanceOf(Ok.class);
        Result.Rejected r = rejected(f.apply(new WriteCheckpoint(a, 4, "y", y, bytes(8))));
        assertThat(r.code()).isEqualTo(Code.LIMIT);
        assertThat(r.message())
                .isEqualTo("checkpointTotalBytesPerPrincipalMax (10) reached by principal p: its checkpoints keep 8"
                        + " bytes and this write adds 8");
        assertThat(f.apply(new WriteCheckpoint(a, 5, "x", x, bytes(10))))
                .as("rewriting its own checkpoint in place counts once")
                .isInstanceOf(Ok.class);

        long b = open("q");
        long z = grant(b, 1, "z", Policy.NONE);
        assertThat(f.apply(new WriteCheckpoint(b, 2, "z", z, bytes(8)))).isInstanceOf(Ok.class);
        assertThat(f.apply(new WriteCheckpoint(0, 0, "z", z, bytes(8), "p")))
                .as("a write without a session counts against the principal the gateway named")
                .isInstanceOf(Result.Rejected.class);

        StateMachine restored = StateMachine.restore(f.sm.snapshot(), TIGHT);
        assertThat(rejected(restored.apply(f.now, new WriteCheckpoint(a, 6, "y", y, bytes(1))))
                        .message())
                .as("the charge survives a snapshot")
                .startsWith("checkpointTotalBytesPerPrincipalMax (10) reached by principal p");
    }

    @Test
    void aPrincipalsOwnQuotaComesThroughTheLogAndCannotBeLoweredBelowWhatItHolds() {
        TreeMap<String, PrincipalLimits> quotas = new TreeMap<>();
        quotas.put("batch", Limits.defaults().with("kvKeysPerPrincipalMax", 2).principal());
        assertThat(f.apply(SetLimits.of(TIGHT, quotas, false, 0))).isInstanceOf(Ok.class);
        for (int i = 1; i <= 2; i++) {
            assertThat(f.apply(put("batch", "b" + i))).isEqualTo(new Result.Written(1));
            assertThat(f.apply(put("web", "w" + i))).isEqualTo(new Result.Written(1));
        }
        assertThat(rejected(f.apply(put("batch", "b3"))).message())
                .isEqualTo("kvKeysPerPrincipalMax (2) reached by principal batch");
        assertThat(f.apply(put("web", "w3"))).isEqualTo(new Result.Written(1));

        quotas.put("batch", Limits.defaults().with("kvKeysPerPrincipalMax", 1).principal());
        Result.Rejected lowered = rejected(f.apply(SetLimits.of(TIGHT, quotas, true, 0)));
        assertThat(lowered.code()).isEqualTo(Code.LIMIT);
        assertThat(lowered.message()).contains("principal batch holds Usage[keys=2");
        assertThat(rejected(f.apply(put("batch", "b3"))).message())
                .isEqualTo("kvKeysPerPrincipalMax (2) reached by principal batch");
    }

    private static Put put(String principal, String key) {
        return new Put(0, 0, key, bytes(1), null, 0, false, principal);
    }
}
