package dev.tenure.lab.process;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network namespace ({@code ip netns}) created and deleted by its owner. Everything done to the
 * network (interfaces, addresses, routes, nft rules) happens inside namespaces made this way,
 * never in the host's: deleting the namespace removes all of it.
 *
 * <p>Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN), {@code ip} (iproute2) and {@code nft}
 * (nftables); {@code .ci/run} installs both. {@link #missingTools()} says what is missing.
 */
public final class NetNamespace implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetNamespace.class);

    public final String name;

    private NetNamespace(String name) {
        this.name = name;
    }

    /** Why namespaces with nft cannot be used here, or empty if they can. */
    public static Optional<String> missingTools() {
        String hint = " (needs root, iproute2 and nftables: apt-get install -y iproute2 nftables)";
        Result ip = run(List.of("ip", "-V"), null);
        if (ip.code != 0) {
            return Optional.of("`ip -V` failed: " + ip.output.strip() + hint);
        }
        Result nft = run(List.of("nft", "--version"), null);
        if (nft.code != 0) {
            return Optional.of("`nft --version` failed: " + nft.output.strip() + hint);
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("not running as root" + hint);
        }
        return Optional.empty();
    }

    /** Creates the namespace with its loopback up and nft proven to work in it. */
    public static NetNamespace create(String name) {
        Result add = run(List.of("ip", "netns", "add", name), null);
        if (add.code != 0) {
            throw new IllegalStateException("cannot create network namespace " + name + ": " + add.output.strip()
                    + " (needs root: CAP_SYS_ADMIN, CAP_NET_ADMIN, and iproute2)");
        }
        NetNamespace ns = new NetNamespace(name);
        try {
            ns.ip("link", "set", "lo", "up");
            ns.nft("table inet tenure_probe {}\ndelete table inet tenure_probe\n");
        } catch (RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /** A namespace another process created, by name (nothing is checked or created). */
    public static NetNamespace existing(String name) {
        return new NetNamespace(name);
    }

    /** Names of every namespace on the machine ({@code ip netns list}). */
    public static List<String> list() {
        Result r = run(List.of("ip", "netns", "list"), null);
        if (r.code != 0) {
            return List.of();
        }
        return r.output
                .lines()
                .map(l -> l.strip().split("\\s+", 0)[0]) // 0: trailing empty strings dropped
                .filter(s -> !s.isEmpty())
                .toList();
    }

    /** {@code command} run inside this namespace (ip netns exec execs it: the pid is the command's). */
    public List<String> command(List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", name));
        all.addAll(command);
        return all;
    }

    /** {@code ip -n NAME ARGS}: must succeed. */
    public String ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip", "-n", name));
        cmd.addAll(List.of(args));
        return check(cmd, run(cmd, null));
    }

    /** Runs a shell command inside the namespace: must succeed. */
    public String sh(String script) {
        List<String> cmd = command(List.of("sh", "-c", script));
        return check(cmd, run(cmd, null));
    }

    /** Loads an nft script ({@code nft -f -}) inside the namespace: must succeed. */
    public String nft(String script) {
        List<String> cmd = command(List.of("nft", "-f", "-"));
        return check(cmd, run(cmd, script));
    }

    /** A veth pair: {@code localIf} here, {@code peerIf} in {@code peer}; created inside the namespaces only. */
    public void veth(String localIf, NetNamespace peer, String peerIf) {
        ip("link", "add", localIf, "type", "veth", "peer", "name", peerIf, "netns", peer.name);
    }

    /** Deletes the namespace; a failure is printed, not thrown (this runs in cleanup paths). */
    @Override
    public void close() {
        Result del = run(List.of("ip", "netns", "del", name), null);
        if (del.code != 0) {
            LOG.warn("could not delete network namespace {}: {}", name, del.output.strip());
        }
    }

    @Override
    public String toString() {
        return name;
    }

    private static String check(List<String> cmd, Result r) {
        if (r.code != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " exited " + r.code + ": " + r.output.strip());
        }
        return r.output;
    }

    private record Result(int code, String output) {}

    private static Result run(List<String> cmd, @Nullable String stdin) {
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
