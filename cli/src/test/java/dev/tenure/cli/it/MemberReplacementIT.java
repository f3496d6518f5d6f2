package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.ServerStatus;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.lab.process.Ports;
import dev.tenure.process.Dirs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/cluster.md "Replacing a member", step by step, on three real nodes: a follower dies with
 * its disk (kill -9, data deleted) and comes back as a new host, the same node id at a new
 * address with an empty data directory. Nothing acknowledged before is lost, tokens go on above
 * every earlier one, the new member serves a client that knows only its address, and it counts
 * in the quorum: the cluster survives losing another of the old members afterwards.
 */
class MemberReplacementIT {
    private static final int NODES = 3;
    private static final Duration PATIENCE = Processes.scaled(Duration.ofSeconds(90));

    @TempDir
    Path dir;

    private final Map<Integer, Processes.Running> nodes = new TreeMap<>();
    private final Map<Integer, String> endpoints = new TreeMap<>();

    @AfterEach
    void stopNodes() {
        nodes.values().forEach(Processes.Running::close);
    }

    @Test
    void aDeadFollowerIsReplacedByANewHostWithItsIdAndAnEmptyDirectory() throws Exception {
        int base = Ports.freeClusterBaseAtRandom(NODES + 1);
        for (int i = 0; i < NODES; i++) {
            endpoints.put(i, "127.0.0.1:" + (base + 20 * i));
        }
        for (int i = 0; i < NODES; i++) {
            start(i, "data-" + i);
        }
        awaitServing(List.of(0, 1, 2));
        int leader = status(0).orElseThrow().leaderId();
        int dead = (leader + 1) % NODES;
        int survivor = (leader + 2) % NODES;

        TenureClient oldClient = client(String.join(",", endpoints.values()));
        Session holder = oldClient.openSession();
        Lease held = holder.acquire("held");
        long maxToken = held.token();
        List<Long> released = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try (Lease lease = holder.acquire("before-" + i)) {
                oldClient.kv().put("key-" + i, ("v" + i).getBytes(UTF_8), "before-" + i, lease.token());
                released.add(lease.token());
                maxToken = Math.max(maxToken, lease.token());
            }
        }

        // The follower's host dies with its disk.
        kill9(nodes.remove(dead));
        Dirs.deleteTree(dir.resolve("data-" + dead));

        // 1. The new host: same id, a new address, an empty data directory, --join. It copies the
        //    latest snapshot and the log after it from a peer, then waits to be let in.
        endpoints.put(dead, "127.0.0.1:" + (base + 20 * NODES));
        start(dead, "data-" + dead + "-new", "--join");
        // 2. Each survivor restarted in turn with the new members list, the leader last.
        restart(survivor);
        awaitServing(List.of(leader, survivor));
        restart(leader);
        awaitServing(List.of(0, 1, 2));

        // Every grant acknowledged before is intact: the live holder still holds its lease.
        assertThat(held.fence(Duration.ZERO)).as("the holder's lease survived").isEqualTo(held.token());
        oldClient.kv().put("held-key", "after".getBytes(UTF_8), "held", held.token());

        // A client that knows only the new member's address.
        try (TenureClient onNew = client(endpoints.get(dead));
                Session s = onNew.openSession()) {
            for (int i = 0; i < 10; i++) {
                assertThat(new String(onNew.kv().get("key-" + i).orElseThrow().value(), UTF_8))
                        .isEqualTo("v" + i);
                try (Lease lease = s.acquire("before-" + i, Duration.ofSeconds(10))) {
                    assertThat(lease.token())
                            .as("tokens continue above every earlier one")
                            .isGreaterThan(maxToken);
                    maxToken = lease.token();
                }
            }
            assertThat(new String(onNew.kv().get("held-key").orElseThrow().value(), UTF_8))
                    .isEqualTo("after");
        }
        held.release();
        holder.close();
        oldClient.close();

        // The new member counts in the quorum: with another old member gone, it and the last
        // old one still decide.
        kill9(nodes.remove(survivor));
        String rest = endpoints.get(dead) + "," + endpoints.get(leader);
        try (TenureClient c = client(rest);
                Session s = c.openSession();
                Lease lease = s.acquire("after-loss", Duration.ofSeconds(20))) {
            assertThat(lease.token()).isGreaterThan(maxToken);
            c.kv().put("after-loss", "ok".getBytes(UTF_8), "after-loss", lease.token());
        }
        assertThat(released).as("each earlier grant was released by its holder").hasSize(10);
    }

    private String members() {
        return endpoints.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
    }

    private void start(int id, String data, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "server",
                "--node-id",
                Integer.toString(id),
                "--members",
                members(),
                "--data",
                dir.resolve(data).toString(),
                "--admin-port",
                "0"));
        args.addAll(List.of(extra));
        nodes.put(id, new Processes.Running(Processes.tenure(args), Map.of()));
    }

    /** SIGTERM, then the same member on the same data with the current members list. */
    private void restart(int id) throws Exception {
        Processes.Running r = nodes.remove(id);
        r.signal("TERM");
        // The JVM ends with 143 on SIGTERM once its shutdown hook has stopped the node.
        assertThat(r.waitFor(Duration.ofSeconds(30)))
                .as("node %d stops on SIGTERM", id)
                .isIn(0, 143);
        r.close();
        start(id, "data-" + id);
    }

    private void awaitServing(List<Integer> ids) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!ids.stream()
                .allMatch(i -> status(i)
                        .filter(s -> "ok".equals(s.health()) && s.leaderId() >= 0)
                        .isPresent())) {
            if (System.nanoTime() > deadline) {
                StringBuilder b = new StringBuilder();
                nodes.forEach(
                        (id, r) -> b.append("\nnode ").append(id).append(":\n").append(r.output()));
                throw new AssertionError("nodes " + ids + " did not all serve within " + PATIENCE + b);
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    private Optional<ServerStatus> status(int id) {
        try (TenureClient c = TenureClient.builder()
                .endpoints(endpoints.get(id))
                .requestTimeout(Duration.ofSeconds(2))
                .build()) {
            return Optional.of(c.serverStatus());
        } catch (TenureException e) {
            return Optional.empty();
        }
    }

    private static TenureClient client(String endpoints) {
        return TenureClient.builder()
                .endpoints(endpoints)
                .sessionTtl(Duration.ofSeconds(30))
                .requestTimeout(Processes.scaled(Duration.ofSeconds(20)))
                .build();
    }

    /**
     * Kills {@code node} with -9 and closes its fixture, which removes its Aeron directory from
     * /dev/shm: a killed node leaves it behind, and the next node started on the machine, in
     * another test, would remove it and say so on stderr.
     */
    private static void kill9(Processes.Running node) throws InterruptedException {
        try (node) {
            node.kill9();
        }
    }
}
