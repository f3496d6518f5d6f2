package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command;
import dev.tenure.core.Limits;
import dev.tenure.core.PrincipalLimits;
import dev.tenure.core.Result;
import dev.tenure.core.StateMachine;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The view refuses a put exactly when the state machine would, on the state it shows: a
 * principal over its quota (its own, from the log, or the default), and never a rewrite in place.
 */
class KvViewTest {
    static final int VALUE_BYTES = 1_000;

    @Test
    void aPrincipalOverItsQuotaIsRefusedAsApplyWouldAndAnotherIsNot() {
        Limits limits = Limits.defaults().with("kvBytesPerPrincipalMax", 3_000);
        StateMachine machine = new StateMachine(limits);
        KvView view = new KvView();
        view.reloaded(machine);
        TreeMap<String, PrincipalLimits> quotas = new TreeMap<>();
        quotas.put("big", limits.with("kvBytesPerPrincipalMax", 100_000).principal());
        assertThat(machine.apply(1, Command.SetLimits.of(limits, quotas, false, 0)))
                .isInstanceOf(Result.Ok.class);
        view.applied(machine);

        for (int i = 0; i < 2; i++) {
            assertThat(view.refusal("alice-" + i, bytes("alice-" + i), "alice")).isNull();
            assertThat(put(machine, "alice-" + i, "alice")).isInstanceOf(Result.Written.class);
            view.applied(machine);
        }

        String refusal = view.refusal("alice-2", bytes("alice-2"), "alice");
        assertThat(refusal).startsWith("kvBytesPerPrincipalMax (3000) reached by principal alice: it holds 2014 bytes");
        assertThat(put(machine, "alice-2", "alice")).as("apply refuses it too").isInstanceOf(Result.Rejected.class);
        assertThat(view.refusal("alice-1", bytes("alice-1"), "alice"))
                .as("a rewrite in place adds nothing")
                .isNull();
        assertThat(view.refusal("alice-2", bytes("alice-2"), "big"))
                .as("a principal with its own, larger quota")
                .isNull();
        assertThat(view.refusal("alice-2", bytes("alice-2"), ""))
                .as("no principal: node-wide only")
                .isNull();

        assertThat(machine.apply(2, new Command.Delete(0, 0, "alice-0", null, 0, false)))
                .isInstanceOf(Result.class);
        view.applied(machine);
        assertThat(view.refusal("alice-2", bytes("alice-2"), "alice"))
                .as("room freed")
                .isNull();
    }

    @Test
    void overItsQuotaAndTheNodesBudgetBothTheViewNamesWhatApplyNames() {
        Limits limits = Limits.defaults().with("kvBytesMax", 2_100).with("kvBytesPerPrincipalMax", 2_100);
        StateMachine machine = new StateMachine(limits);
        KvView view = new KvView();
        view.reloaded(machine);
        for (int i = 0; i < 2; i++) {
            assertThat(put(machine, "alice-" + i, "alice")).isInstanceOf(Result.Written.class);
        }
        view.applied(machine);

        String refusal = view.refusal("alice-2", bytes("alice-2"), "alice");
        Result applied = put(machine, "alice-2", "alice");
        assertThat(applied).isInstanceOf(Result.Rejected.class);
        assertThat(refusal).startsWith(((Result.Rejected) applied).message() + ", by this node's latest view");
        assertThat(view.refusal("bob-0", bytes("bob-0"), "bob"))
                .startsWith(((Result.Rejected) put(machine, "bob-0", "bob")).message() + ", by this node's latest view")
                .startsWith("kvBytesMax (2100) reached");
    }

    private static long bytes(String key) {
        return (long) key.length() + VALUE_BYTES;
    }

    private static Result put(StateMachine machine, String key, String principal) {
        return machine.apply(1, new Command.Put(0, 0, key, new byte[VALUE_BYTES], null, 0, false, principal));
    }
}
