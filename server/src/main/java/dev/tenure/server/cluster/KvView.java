package dev.tenure.server.cluster;

import dev.tenure.core.KvCharge;
import dev.tenure.core.Limits;
import dev.tenure.core.PrincipalLimits;
import dev.tenure.core.StateMachine;
import dev.tenure.gateway.KvRoom;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * This node's view of its replica's fenced KV, for the gateway's threads: what each key counts
 * against the byte budgets, what each principal holds, and the limits in force, as the service
 * thread left them after its last apply. It refuses a put only by the rules the state machine
 * applies ({@code KvCommands}), on the counts it shows.
 *
 * <p>How fresh: the service thread updates it after every apply, before it answers the apply's
 * clients, so it is behind this replica by at most the apply running now, and behind the log by
 * what this replica has not applied yet (on the leader, the commands not yet committed). A put
 * the view refuses could have fitted only if a command ahead of it in the log frees room; see
 * {@code Gateway.roomFor}. Cost: one map entry per key (the key's string is the state's own).
 */
public final class KvView implements KvRoom {
    private record Held(long keys, long bytes) {}

    private final ConcurrentHashMap<String, KvCharge> keys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Held> held = new ConcurrentHashMap<>();
    private volatile @Nullable Limits limits; // null until the service thread first read them
    private volatile @Nullable StateMachineQuotas quotas; // as limits
    private volatile long kvKeys;
    private volatile long kvBytes;

    /** The quotas in force, as the service thread found them when the limits last changed. */
    private record StateMachineQuotas(Limits limits, java.util.Map<String, PrincipalLimits> own) {
        PrincipalLimits of(String principal) {
            PrincipalLimits q = own.get(principal);
            return q != null ? q : limits.principal();
        }
    }

    /** Service thread: the machine was made or restored; every key is read again. */
    void reloaded(StateMachine machine) {
        machine.trackChangedKeys();
        keys.clear();
        held.clear();
        TreeSet<String> all = new TreeSet<>();
        machine.forEachKey(all::add);
        refresh(machine, all);
    }

    /** Service thread, after each apply: the keys it put or deleted, and the limits, read again. */
    void applied(StateMachine machine) {
        TreeSet<String> changed = new TreeSet<>();
        machine.drainChangedKeys(changed::add);
        refresh(machine, changed);
    }

    private void refresh(StateMachine machine, NavigableSet<String> changed) {
        TreeSet<String> principals = new TreeSet<>();
        for (String key : changed) {
            KvCharge before = keys.get(key);
            KvCharge now = machine.kvCharge(key);
            if (before != null) {
                principals.add(before.principal());
            }
            if (now == null) {
                keys.remove(key);
            } else {
                keys.put(key, now);
                principals.add(now.principal());
            }
        }
        principals.remove("");
        for (String principal : principals) {
            KvCharge.Held h = machine.kvHeldBy(principal);
            if (h.keys() == 0) {
                held.remove(principal);
            } else {
                held.put(principal, new Held(h.keys(), h.bytes()));
            }
        }
        var usage = machine.usage();
        kvKeys = usage.kvKeys();
        kvBytes = usage.kvBytes();
        Limits inForce = machine.limits();
        StateMachineQuotas q = quotas;
        // The log replaces the limits and quotas together, and never changes either in place.
        if (q == null || changed(q.limits(), inForce)) {
            quotas = new StateMachineQuotas(inForce, machine.quotas());
        }
        limits = inForce;
    }

    // Identity on purpose: the limits and quotas are replaced together, as new objects, so a new
    // Limits object says the quotas may be new too, even where its values equal the old ones'.
    @SuppressWarnings("ReferenceEquality")
    private static boolean changed(Limits before, Limits now) {
        return before != now;
    }

    @Override
    public @Nullable String refusal(String key, long entryBytes, String principal) {
        Limits l = limits;
        StateMachineQuotas q = quotas;
        if (l == null || q == null) {
            return null;
        }
        KvCharge old = keys.get(key);
        // The writer's quota first, then the node's: the order apply names them in (KvCommands).
        String own = principal.isEmpty() ? null : principalFull(q.of(principal), principal, old, entryBytes);
        return own != null ? own : nodeFull(l, old, entryBytes);
    }

    private @Nullable String principalFull(
            PrincipalLimits quota, String principal, @Nullable KvCharge old, long entryBytes) {
        Held h = held.getOrDefault(principal, new Held(0, 0));
        boolean holds = old != null && old.principal().equals(principal);
        if (!holds && h.keys() >= quota.kvKeysMax()) {
            return "kvKeysPerPrincipalMax (" + quota.kvKeysMax() + ") reached by principal " + principal + behind();
        }
        long added = entryBytes - (holds && old != null ? old.bytes() : 0);
        if (added > 0 && h.bytes() + added > quota.kvBytesMax()) {
            return "kvBytesPerPrincipalMax (" + quota.kvBytesMax() + ") reached by principal " + principal
                    + ": it holds " + h.bytes() + " bytes and this write adds " + added + behind();
        }
        return null;
    }

    private @Nullable String nodeFull(Limits l, @Nullable KvCharge old, long entryBytes) {
        if (old == null && kvKeys >= l.kvKeysMax()) {
            return "kvKeysMax (" + l.kvKeysMax() + ") reached" + behind();
        }
        long added = entryBytes - (old == null ? 0 : old.bytes());
        if (added > 0 && kvBytes + added > l.kvBytesMax()) {
            return "kvBytesMax (" + l.kvBytesMax() + ") reached: the KV holds " + kvBytes
                    + " bytes and this write adds " + added + behind();
        }
        return null;
    }

    private static String behind() {
        return ", by this node's latest view of the state; refused before the log, nothing changed;"
                + " retry once room is freed";
    }
}
