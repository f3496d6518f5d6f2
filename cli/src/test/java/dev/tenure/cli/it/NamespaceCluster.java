package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.lab.process.LabNetwork;
import dev.tenure.lab.process.NetNamespace;
import dev.tenure.process.Dirs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Three `tenure server` processes, each in its own network namespace with its own address
 * ({@link LabNetwork}: node i at 10.214.i.2), each started from its own configuration file, and
 * clients in the hub namespace that routes between them. Nothing touches the host's interfaces
 * or firewall; {@link #close()} removes the namespaces, the processes and their Aeron files.
 *
 * <p>The partition is an nft rule set in the hub dropping all UDP (Aeron: consensus, log,
 * catch-up, archive, ingress and egress between gateways and the leader) between one node and
 * the others, both directions; TCP is untouched, so clients still reach the cut-off node's gateway.
 */
final class NamespaceCluster implements AutoCloseable {

    /** Every node has its own namespace and address, so all use the same port. */
    static final int PORT = 7420;

    static final int SIZE = 3;
    private static final String NFT_TABLE = "tenure_partition";

    private final Path data;
    private final LabNetwork network;
    private final List<Processes.Running> nodes = new ArrayList<>();
    private final List<Processes.Running> clients = new CopyOnWriteArrayList<>();
    /** Lines every node's configuration file ends with, as its test sets them before {@link #startAll}. */
    final List<String> configLines = new ArrayList<>();

    private NamespaceCluster(Path data, LabNetwork network) {
        this.data = data;
        this.network = network;
    }

    /** The namespaces, or a failure saying which tool is missing. */
    static NamespaceCluster create(Path data, String test) {
        NetNamespace.missingTools().ifPresent(why -> {
            throw new AssertionError(test + " cannot build its network namespaces here: " + why);
        });
        return new NamespaceCluster(
                data, LabNetwork.create("tenure-it-" + ProcessHandle.current().pid(), SIZE));
    }

    static String address(int node) {
        return LabNetwork.address(node);
    }

    static String endpoint(int node) {
        return address(node) + ":" + PORT;
    }

    static String endpoints(List<Integer> nodes) {
        return nodes.stream().map(NamespaceCluster::endpoint).collect(Collectors.joining(","));
    }

    NetNamespace hub() {
        return network.hub();
    }

    Path configFile(int node) {
        return data.resolve("node-" + node + ".yaml");
    }

    /**
     * Node {@code node}'s configuration file, as an operator writes it for a member on its own
     * host: the gateway listens on every address of its namespace ({@code bind}), while the
     * address peers and clients are told, and Aeron's, is its entry in {@code members}.
     */
    Path writeConfig(int node) throws IOException {
        StringBuilder yaml = new StringBuilder();
        yaml.append("node-id: ").append(node).append('\n');
        yaml.append("data: ").append(data.resolve("node-" + node)).append('\n');
        yaml.append("bind: 0.0.0.0\n");
        yaml.append("admin-port: 0\n");
        yaml.append("members:\n");
        for (int i = 0; i < SIZE; i++) {
            yaml.append("  - {id: ")
                    .append(i)
                    .append(", host: ")
                    .append(address(i))
                    .append(", port: ")
                    .append(PORT)
                    .append("}\n");
        }
        // 10.214.x addresses on the test's own veth links: plaintext by choice.
        yaml.append("insecure: true\n");
        configLines.forEach(l -> yaml.append(l).append('\n'));
        Path file = configFile(node);
        Files.writeString(file, yaml.toString(), StandardCharsets.UTF_8);
        return file;
    }

    /** Starts every node from its file (written if absent) and waits for each to serve. */
    void startAll() throws Exception {
        for (int i = 0; i < SIZE; i++) {
            nodes.add(launch(i));
        }
        for (Processes.Running node : nodes) {
            assertThat(node.nextLine(Duration.ofSeconds(60))).contains("serving on");
        }
    }

    /** Starts node {@code node} again from its file, as its supervisor would after a crash. */
    void restart(int node) throws Exception {
        nodes.set(node, launch(node));
        assertThat(nodes.get(node).nextLine(Duration.ofSeconds(60))).contains("serving on");
    }

    private Processes.Running launch(int node) throws IOException {
        Path file = Files.exists(configFile(node)) ? configFile(node) : writeConfig(node);
        return new Processes.Running(
                network.node(node).command(Processes.tenure(List.of("server", "--config", file.toString()))), Map.of());
    }

    Processes.Running node(int node) {
        return nodes.get(node);
    }

    /** SIGKILL: the node gets no chance to say anything or clean up. */
    void kill9(int node) throws InterruptedException {
        nodes.get(node).kill9();
        nodes.get(node).process.waitFor(30, TimeUnit.SECONDS);
    }

    // ---- the partition ------------------------------------------------------------------------

    /** No UDP between {@code node} and the other nodes, either way, until {@link #heal()}. */
    void isolate(int node) {
        String others = IntStream.range(0, SIZE)
                .filter(i -> i != node)
                .mapToObj(NamespaceCluster::address)
                .collect(Collectors.joining(", "));
        hub().nft(String.format("""
                table inet %1$s {
                  chain forward {
                    type filter hook forward priority 0; policy accept;
                    meta l4proto udp ip saddr %2$s ip daddr { %3$s } counter drop
                    meta l4proto udp ip saddr { %3$s } ip daddr %2$s counter drop
                  }
                }
                """, NFT_TABLE, address(node), others));
    }

    /** Packets the partition's two rules dropped: from the isolated node, and to it. */
    List<Long> droppedPackets() {
        String rules = hub().sh("nft list table inet " + NFT_TABLE);
        Matcher m = Pattern.compile("counter packets (\\d+)").matcher(rules);
        List<Long> counts = new ArrayList<>();
        while (m.find()) {
            counts.add(Long.parseLong(m.group(1)));
        }
        assertThat(counts).as(rules).hasSize(2);
        return counts;
    }

    void heal() {
        hub().nft("delete table inet " + NFT_TABLE + "\n");
    }

    // ---- clients, all in the hub namespace ---------------------------------------------------

    Processes.Running client(List<String> command) throws IOException {
        Processes.Running p = new Processes.Running(hub().command(command), Map.of());
        clients.add(p);
        return p;
    }

    /** The probe {@link ProbeViews} follows: every node's status every 100 ms. */
    Processes.Running probe() throws IOException {
        List<String> args = new ArrayList<>(List.of("probe", "100"));
        IntStream.range(0, SIZE).forEach(i -> args.add(endpoint(i)));
        return client(Processes.worker(PartitionWorker.class.getName(), args));
    }

    Processes.Running tenure(String... args) throws IOException {
        return client(Processes.tenure(List.of(args)));
    }

    /**
     * A client request that should succeed: a generous request timeout, so a loaded machine (JVM
     * start, other builds) does not turn it into exit 5. Requests expected to fail keep the default.
     */
    static String[] patient(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--timeout");
        all.add(Processes.scaled(Duration.ofSeconds(20)).toMillis() + "ms");
        return all.toArray(String[]::new);
    }

    Processes.Running expectExit(int code, String... args) throws Exception {
        Processes.Running p = tenure(patient(args));
        assertThat(p.waitFor(Duration.ofSeconds(30)))
                .as("tenure %s: %s", String.join(" ", args), p.output())
                .isEqualTo(code);
        return p;
    }

    static JsonObject json(String line) {
        return JsonParser.parseString(line).getAsJsonObject();
    }

    /** The last lines of every node's output, for a failure message. */
    String diagnostics() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++) {
            List<String> lines = List.copyOf(nodes.get(i).all);
            b.append("\n--- node ").append(i).append(" (last lines) ---\n");
            b.append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
        }
        return b.toString();
    }

    // ---- clean-up, also after a failure -----------------------------------------------------

    @Override
    public void close() {
        clients.forEach(Processes.Running::close);
        // Nodes stop on SIGTERM (their Aeron files in /dev/shm go with them); SIGKILL if they hang.
        nodes.forEach(node -> node.process.destroy());
        for (Processes.Running node : nodes) {
            try {
                if (!node.process.waitFor(
                        Processes.scaled(Duration.ofSeconds(15)).toMillis(), TimeUnit.MILLISECONDS)) {
                    node.close();
                }
                node.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                node.close();
                Thread.currentThread().interrupt();
            }
        }
        for (Processes.Running c : clients) {
            try {
                c.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // A node killed with SIGKILL left its Aeron files behind.
        for (int i = 0; i < SIZE; i++) {
            try {
                Dirs.deleteAeronDirs(data.resolve("node-" + i));
            } catch (IOException e) {
                System.err.println("NamespaceCluster: " + e);
            }
        }
        network.close();
    }
}
