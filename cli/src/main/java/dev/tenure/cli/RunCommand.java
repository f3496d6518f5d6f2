package dev.tenure.cli;

import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "run",
        description = {
            "Runs CMD while holding LOCK and returns its exit code.",
            "CMD sees TENURE_LOCK, TENURE_TOKEN,",
            "TENURE_SESSION, TENURE_ENDPOINT, TENURE_PREVIOUS_END, TENURE_PREVIOUS_TOKEN and, if a holder",
            "left one, TENURE_CHECKPOINT (UTF-8 text), TENURE_CHECKPOINT_B64 and TENURE_CHECKPOINT_TOKEN;",
            "with TLS, TENURE_TLS_CA, TENURE_TLS_CERT and TENURE_TLS_KEY as this command connects.",
            "CMD runs in a process group of its own. When less than --grace of the lease's validity is left",
            "without a renewal, or the lease is lost, the whole group gets SIGTERM, then SIGKILL once --grace",
            "has passed, and tenure exits 4. If tenure run is killed, the group is killed with it.",
            "With --renew manual, CMD renews the lease by writing a line to the named pipe TENURE_RENEW",
            "(echo >\"$TENURE_RENEW\"); a CMD that stops writing loses the lease after --lease-ttl."
        })
final class RunCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "LOCK")
    String lock;

    @Parameters(
            index = "1..*",
            paramLabel = "CMD",
            arity = "1..*",
            description = "The command and its arguments (after --).")
    List<String> command;

    @Mixin
    ClientOptions client;

    @Mixin
    WaitOptions waiting;

    @Mixin
    PolicyOptions policy;

    @Option(
            names = "--json",
            description = "Report tenure's own failures as one JSON object on stdout (CMD's output is CMD's).")
    boolean json;

    @Option(
            names = "--grace",
            description = "Time between SIGTERM and SIGKILL to CMD's process group when the lease ends. At most"
                    + " a quarter of the lease's validity window (--ttl, or --disconnect-grace or --lease-ttl when"
                    + " shorter); larger values are lowered to it (default: that quarter).",
            converter = DurationConverter.class)
    @Nullable
    Duration grace;

    @Override
    public Integer call() throws IOException, InterruptedException {
        Supervisor.check();
        grace = fittingGrace();
        CompletableFuture<String> stop = Signals.termination();
        try (TenureClient tenure = client.client();
                Session session = tenure.openSession()) {
            Lease lease = waiting.acquire(session, lock, policy);
            try (RenewPipe renew = policy.manual() ? RenewPipe.open(lease) : null) {
                return runUnder(lease, renew, stop);
            }
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    /**
     * Runs {@code cmd} under a lease taken elsewhere ({@code tenure elect -- CMD}), by exactly the
     * rules of {@code tenure run}: the same grace, horizon watch and process-group stop. Call
     * {@link #prepare} before the lease is taken.
     */
    static RunCommand under(ClientOptions client, PolicyOptions policy, List<String> cmd, String lock) {
        RunCommand run = new RunCommand();
        run.client = client;
        run.policy = policy;
        run.command = cmd;
        run.lock = lock;
        return run;
    }

    /** What {@link #call} does before it acquires: the supervisor check and the grace. */
    void prepare() {
        Supervisor.check();
        grace = fittingGrace();
    }

    /** Runs the command under {@code lease} until it ends, the lease is lost or {@code stop} fires. */
    int runHeld(Lease lease, CompletableFuture<String> stop) throws IOException, InterruptedException {
        try (RenewPipe renew = policy.manual() ? RenewPipe.open(lease) : null) {
            return runUnder(lease, renew, stop);
        }
    }

    /**
     * The grace must end before the lease does: the group gets SIGTERM once no more than the grace
     * is left of the lease's validity, so SIGKILL lands by the client's horizon, which is itself
     * a drift margin before the server could grant the lock to anyone else. A quarter of the
     * validity window W never trips on a healthy lease: with a disconnect grace (W is then the
     * grace) echoes go every W/8, and without one keepalives every W/3, so what is left stays above
     * W - W/3 - margin (W/20) - one round trip, about 0.6 W.
     */
    private Duration fittingGrace() {
        Duration window = LeaseWatch.window(client, policy);
        Duration max = window.dividedBy(4);
        if (grace == null) {
            return max;
        }
        if (grace.compareTo(max) > 0) {
            System.err.println("tenure: --grace " + grace.toMillis() + "ms does not fit the lease's "
                    + window.toMillis() + "ms validity window; using a quarter of it, " + max.toMillis() + "ms");
            return max;
        }
        return grace;
    }

    /** The grace in force: {@link #call} fits it before anything uses it. */
    private Duration grace() {
        return Objects.requireNonNull(grace, "call() sets the grace before any process starts");
    }

    private int runUnder(Lease lease, @Nullable RenewPipe renew, CompletableFuture<String> stop)
            throws IOException, InterruptedException {
        Process supervisor = start(lease, renew);
        // The command's end (the Process), the lease's first invalidity (its LossReason), a
        // termination signal (its name), or no more than the grace left of the lease (null).
        Object why = LeaseWatch.firstOf(lease, grace(), supervisor.onExit(), LeaseWatch.invalidity(lease), stop);
        if (why instanceof Process) {
            int code = supervisor.exitValue();
            lease.release();
            return code;
        }
        stopGroup(supervisor);
        if (why instanceof String) {
            // tenure itself was asked to stop: the group is gone, release.
            lease.release();
            return supervisor.exitValue();
        }
        String reason = why instanceof LossReason || why == LeaseWatch.IN_DOUBT
                ? why.toString()
                : "no renewal confirmed with only --grace (" + grace().toMillis() + " ms) of its validity left";
        String message = "lease on " + lock + " (token " + lease.token() + ") lost: " + reason
                + "; stopped the command's process group";
        if (why == LeaseWatch.IN_DOUBT) {
            ExitCodes.haltLeaseLost(message + " (no answer on the connection within the disconnect grace)");
        }
        if (why == null) {
            awaitLoss(lease, message);
        }
        throw new CliException(ExitCodes.LEASE_LOST, message);
    }

    /**
     * The command was stopped before the lease ran out. The next holder must not read that as a
     * clean release, which is what closing the session would record while the lease is still
     * current: so wait for the lease to run out (no more than the grace, unless a renewal came
     * through meanwhile). If one did, leave without closing the session, which the node then ends
     * as DISCONNECTED: the cautious reading for the next holder.
     */
    private static void awaitLoss(Lease lease, String message) throws InterruptedException {
        try {
            lease.lost().get(lease.remaining().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            ExitCodes.haltLeaseLost(
                    message + "; the lease is not lost (yet), so the session is left to end as" + " DISCONNECTED");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private Process start(Lease lease, @Nullable RenewPipe renew) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Supervisor.command(command, grace())).inheritIO();
        Map<String, String> env = pb.environment();
        env.put("TENURE_LOCK", lease.lock());
        env.put("TENURE_TOKEN", Long.toString(lease.token()));
        env.put("TENURE_SESSION", Long.toString(lease.sessionId()));
        env.put("TENURE_ENDPOINT", client.endpoints());
        // The command connects as this process does: `tenure kv put --token` under it needs no flags.
        client.tls.files().forEach((variable, file) -> env.put(variable, file.toString()));
        env.put("TENURE_PREVIOUS_END", lease.previousEnd().map(Enum::name).orElse("NONE"));
        env.put("TENURE_PREVIOUS_TOKEN", Long.toString(lease.previousToken()));
        env.remove("TENURE_CHECKPOINT");
        env.remove("TENURE_CHECKPOINT_B64");
        env.remove("TENURE_CHECKPOINT_TOKEN");
        env.remove("TENURE_RENEW");
        if (renew != null) {
            env.put("TENURE_RENEW", renew.path().toString());
        }
        lease.previousCheckpoint().ifPresent(c -> {
            // A binary value (not valid UTF-8, or holding NUL, which no environment can carry)
            // is given in base64 only.
            String text = utf8(c.value());
            if (text != null) {
                env.put("TENURE_CHECKPOINT", text);
            }
            env.put("TENURE_CHECKPOINT_B64", Base64.getEncoder().encodeToString(c.value()));
            env.put("TENURE_CHECKPOINT_TOKEN", Long.toString(c.token()));
        });
        return pb.start();
    }

    private static @Nullable String utf8(byte[] value) {
        try {
            String s = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(value))
                    .toString();
            return s.indexOf(0) >= 0 ? null : s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /**
     * SIGTERM to the supervisor, which stops the group (SIGTERM, SIGKILL after the grace) and exits
     * once no process of it is left. Should it not exit, its descendants still parented under it
     * get SIGKILL from here.
     */
    private void stopGroup(Process supervisor) throws InterruptedException {
        supervisor.destroy();
        if (!supervisor.waitFor(grace().toMillis() + 2000, TimeUnit.MILLISECONDS)) {
            supervisor.descendants().forEach(ProcessHandle::destroyForcibly);
            supervisor.destroyForcibly();
            supervisor.waitFor();
        }
    }
}
