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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "run",
        description = {
            "Runs CMD while holding LOCK and returns its exit code. CMD sees TENURE_LOCK, TENURE_TOKEN,",
            "TENURE_SESSION, TENURE_ENDPOINT, TENURE_PREVIOUS_END, TENURE_PREVIOUS_TOKEN and, if a holder",
            "left one, TENURE_CHECKPOINT (UTF-8 text), TENURE_CHECKPOINT_B64 and TENURE_CHECKPOINT_TOKEN.",
            "If the lease is lost, CMD gets SIGTERM (SIGKILL after --grace) and tenure exits 4.",
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
            names = "--grace",
            description = "Time between SIGTERM and SIGKILL when the lease is lost (default: ${DEFAULT-VALUE}).",
            defaultValue = "5s",
            converter = DurationConverter.class)
    Duration grace;

    @Override
    public Integer call() throws IOException, InterruptedException {
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

    private int runUnder(Lease lease, RenewPipe renew, CompletableFuture<String> stop)
            throws IOException, InterruptedException {
        Process child = start(lease, renew);
        Object first =
                CompletableFuture.anyOf(child.onExit(), lease.lost(), stop).join();
        if (first instanceof LossReason reason) {
            stopChild(child);
            throw new CliException(
                    ExitCodes.LEASE_LOST,
                    "lease on " + lock + " (token " + lease.token() + ") lost: " + reason + "; stopped the command");
        }
        if (first instanceof String) {
            // tenure itself was asked to stop: pass it on, then release.
            stopChild(child);
        }
        int code = child.waitFor();
        lease.release();
        return code;
    }

    private Process start(Lease lease, RenewPipe renew) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        Map<String, String> env = pb.environment();
        env.put("TENURE_LOCK", lease.lock());
        env.put("TENURE_TOKEN", Long.toString(lease.token()));
        env.put("TENURE_SESSION", Long.toString(lease.sessionId()));
        env.put("TENURE_ENDPOINT", client.endpoints());
        env.put("TENURE_PREVIOUS_END", lease.previousEnd().name());
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

    private static String utf8(byte[] value) {
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

    private void stopChild(Process child) throws InterruptedException {
        child.destroy(); // SIGTERM
        if (!child.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            child.destroyForcibly(); // SIGKILL
            child.waitFor();
        }
    }
}
