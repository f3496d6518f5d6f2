package dev.tenure.lab.process;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A network of namespaces for a local cluster, so that faults between nodes can be kernel rules:
 * a hub namespace (where the lab, its workers, proxies and store run) and one namespace per
 * node, each joined to the hub by a veth pair; the hub routes between them. Node {@code i} has the
 * address {@code 10.214.i.2}, the hub {@code 10.214.i.1} on that node's link. Nothing touches
 * the host's interfaces or firewall: deleting the namespaces removes all of it.
 *
 * <p>Why not several loopback addresses in one namespace: the kernel gives a socket bound to the
 * wildcard address (Aeron's senders are) the source 127.0.0.1 whatever node it belongs to, so
 * rules could not tell nodes apart. Separate namespaces give each node's packets its own source.
 *
 * <p>Faults are one nft table in the hub: node-to-node traffic crosses its {@code forward} chain,
 * traffic between a node and the hub's processes its {@code input} and {@code output} chains.
 */
public final class LabNetwork implements AutoCloseable {
    /** The environment variable naming the network a re-executed lab runs in (its base name). */
    public static final String ENV = "TENURE_LAB_NETNS";
    /** The hub's side of a link to a node in {@link Link}. */
    public static final int HUB = -1;

    private static final String SUBNET = "10.214";
    private static final String TABLE = "tenure_lab_fault";
    private static final Pattern OWNED = Pattern.compile("(tenure-lab-(\\d+))(-.*)?");

    private final String base;
    private final NetNamespace hub;
    private final List<NetNamespace> nodes;
    private final boolean owned;
    private boolean closed; // guarded by this

    private LabNetwork(String base, NetNamespace hub, List<NetNamespace> nodes, boolean owned) {
        this.base = base;
        this.hub = hub;
        this.nodes = nodes;
        this.owned = owned;
    }

    /** A traffic direction: from node {@code from} to node {@code to}; either may be {@link #HUB}. */
    public record Link(int from, int to) {}

    /**
     * Creates the lab's network, {@code tenure-lab-<this pid>}, after deleting any left by a lab
     * process that no longer runs (one killed with SIGKILL cannot clean up after itself).
     */
    public static LabNetwork createForLab(int nodeCount) {
        for (String name : NetNamespace.list()) {
            Matcher m = OWNED.matcher(name);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(2))).isEmpty()) {
                NetNamespace.existing(name).close();
            }
        }
        return create("tenure-lab-" + ProcessHandle.current().pid(), nodeCount);
    }

    /** Creates hub {@code base} and nodes {@code base-node<i>}, linked and routed. */
    public static LabNetwork create(String base, int nodeCount) {
        List<NetNamespace> made = new ArrayList<>();
        try {
            NetNamespace hub = NetNamespace.create(base);
            made.add(hub);
            hub.sh("echo 1 > /proc/sys/net/ipv4/ip_forward");
            List<NetNamespace> nodes = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                NetNamespace node = NetNamespace.create(nodeName(base, i));
                made.add(node);
                nodes.add(node);
                String hubIf = "node" + i;
                hub.veth(hubIf, node, "eth0");
                hub.ip("addr", "add", SUBNET + "." + i + ".1/24", "dev", hubIf);
                hub.ip("link", "set", hubIf, "up");
                node.ip("addr", "add", address(i) + "/24", "dev", "eth0");
                node.ip("link", "set", "eth0", "up");
                node.ip("route", "add", "default", "via", SUBNET + "." + i + ".1");
            }
            return new LabNetwork(base, hub, nodes, true);
        } catch (RuntimeException e) {
            made.forEach(NetNamespace::close);
            throw e;
        }
    }

    /** The network another process created and owns (this one only uses it). */
    public static LabNetwork attach(String base, int nodeCount) {
        List<NetNamespace> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(NetNamespace.existing(nodeName(base, i)));
        }
        return new LabNetwork(base, NetNamespace.existing(base), nodes, false);
    }

    private static String nodeName(String base, int i) {
        return base + "-node" + i;
    }

    public static String address(int node) {
        return SUBNET + "." + node + ".2";
    }

    public String base() {
        return base;
    }

    public NetNamespace hub() {
        return hub;
    }

    public NetNamespace node(int i) {
        return nodes.get(i);
    }

    /** For progress lines: which namespaces, which addresses. */
    public String describe() {
        return "network namespaces " + base + " (hub) and " + nodeName(base, 0) + ".." + (nodes.size() - 1)
                + " (node i at " + SUBNET + ".i.2)";
    }

    public int size() {
        return nodes.size();
    }

    /**
     * Drops every packet on the given links (all protocols) until {@link #heal()}. One fault at a
     * time: a second call replaces nothing, it fails.
     */
    public void drop(List<Link> links) {
        StringBuilder forward = new StringBuilder();
        StringBuilder input = new StringBuilder();
        StringBuilder output = new StringBuilder();
        for (Link l : links) {
            if (l.from == HUB && l.to == HUB) {
                throw new IllegalArgumentException("a link needs a node at one end at least: " + l);
            }
            if (l.from == HUB) {
                output.append(rule("ip daddr " + address(l.to)));
            } else if (l.to == HUB) {
                input.append(rule("ip saddr " + address(l.from)));
            } else {
                forward.append(rule("ip saddr " + address(l.from) + " ip daddr " + address(l.to)));
            }
        }
        hub.nft("table inet " + TABLE + " {\n"
                + chain("forward", forward)
                + chain("input", input)
                + chain("output", output)
                + "}\n");
    }

    /** Removes the fault's rules; returns how many packets they dropped (evidence the fault landed). */
    public long heal() {
        String rules = hub.sh("nft list table inet " + TABLE);
        long dropped = 0;
        Matcher m = Pattern.compile("counter packets (\\d+)").matcher(rules);
        while (m.find()) {
            dropped += Long.parseLong(m.group(1));
        }
        hub.nft("delete table inet " + TABLE + "\n");
        return dropped;
    }

    private static String rule(String match) {
        return String.format(Locale.ROOT, "    %s counter drop%n", match);
    }

    private static String chain(String hook, StringBuilder rules) {
        return "  chain " + hook + " {\n    type filter hook " + hook + " priority 0; policy accept;\n" + rules
                + "  }\n";
    }

    /**
     * Deletes the namespaces if this process created them, once. Synchronized: a shutdown hook
     * calling it while another thread deletes waits, or the JVM would halt midway.
     */
    @Override
    public synchronized void close() {
        if (owned && !closed) {
            closed = true;
            nodes.forEach(NetNamespace::close);
            hub.close();
        }
    }
}
