package dev.tenure.cli.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A network namespace the test creates ({@code ip netns add}) and deletes. Everything a test does
 * to the network (interfaces, addresses, routes, nft rules) happens inside namespaces made this
 * way, never in the host's: deleting the namespace removes all of it.
 *
 * <p>Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN), {@code ip} (iproute2) and {@code nft}
 * (nftables); {@code .ci/run} installs both. Without them {@link #requireTools()} fails the test
 * with a message saying what is missing: a partition test that silently skips proves nothing.
 */
final class NetNamespace implements AutoCloseable {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    final String name;

    private NetNamespace(String name) {
        this.name = name;
    }

    /** {@code prefix-<this JVM's pid>-<n>}: unique on the machine while this JVM runs. */
    static String uniqueName(String prefix) {
        return prefix + "-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    }

    /** Fails (never skips) unless `ip netns` and `nft` can be used here. */
    static void requireTools() {
        String hint = "; PartitionIT needs root, iproute2 and nftables "
                + "(apt-get install -y iproute2 nftables, as .ci/run does)";
        Result ip = run(List.of("ip", "-V"), null);
        if (ip.code != 0) {
            throw new AssertionError("`ip -V` failed (" + ip.output.strip() + ")" + hint);
        }
        Result nft = run(List.of("nft", "--version"), null);
        if (nft.code != 0) {
            throw new AssertionError("`nft --version` failed (" + nft.output.strip() + ")" + hint);
        }
    }

    /** Creates the namespace with its loopback up; fails with the reason if it cannot. */
    static NetNamespace create(String name) {
        Result add = run(List.of("ip", "netns", "add", name), null);
        if (add.code != 0) {
            throw new AssertionError("cannot create network namespace " + name + ": " + add.output.strip()
                    + "; PartitionIT needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) and iproute2");
        }
        NetNamespace ns = new NetNamespace(name);
        try {
            ns.ip("link", "set", "lo", "up");
            // Proves nft works inside the namespace before anything depends on it.
            ns.nft("table inet tenure_probe {}\ndelete table inet tenure_probe\n");
        } catch (AssertionError | RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /** {@code command} run inside this namespace (ip netns exec execs it: the pid is the command's). */
    List<String> command(List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", name));
        all.addAll(command);
        return all;
    }

    /** {@code ip -n NAME ARGS}: must succeed. */
    String ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip", "-n", name));
        cmd.addAll(List.of(args));
        return check(cmd, run(cmd, null));
    }

    /** Runs a shell command inside the namespace: must succeed. */
    String sh(String script) {
        List<String> cmd = command(List.of("sh", "-c", script));
        return check(cmd, run(cmd, null));
    }

    /** Loads an nft script ({@code nft -f -}) inside the namespace: must succeed. */
    String nft(String script) {
        List<String> cmd = command(List.of("nft", "-f", "-"));
        return check(cmd, run(cmd, script));
    }

    /** A veth pair: {@code localIf} here, {@code peerIf} in {@code peer}; created inside the namespaces only. */
    void veth(String localIf, NetNamespace peer, String peerIf) {
        ip("link", "add", localIf, "type", "veth", "peer", "name", peerIf, "netns", peer.name);
    }

    @Override
    public void close() {
        Result del = run(List.of("ip", "netns", "del", name), null);
        if (del.code != 0) {
            System.err.println("PartitionIT: could not delete network namespace " + name + ": " + del.output.strip());
        }
    }

    @Override
    public String toString() {
        return name;
    }

    private static String check(List<String> cmd, Result r) {
        if (r.code != 0) {
            throw new AssertionError(String.join(" ", cmd) + " exited " + r.code + ": " + r.output.strip());
        }
        return r.output;
    }

    private record Result(int code, String output) {}

    private static Result run(List<String> cmd, String stdin) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out: " + new String(out, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, cmd.get(0) + " could not be run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}
