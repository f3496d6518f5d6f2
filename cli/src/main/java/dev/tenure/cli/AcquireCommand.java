package dev.tenure.cli;

import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "acquire",
        description = {
            "Acquires LOCK, prints the grant, then holds and renews the lease.",
            "It holds it until SIGINT/SIGTERM (releases, exit 0) or until the lease is lost (prints why,",
            "exit 4). With --renew manual the lease is renewed once per line read on standard input, and",
            "expires when the lines stop."
        })
final class AcquireCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "LOCK")
    String lock;

    @Mixin
    ClientOptions client;

    @Mixin
    WaitOptions waiting;

    @Mixin
    PolicyOptions policy;

    @Option(names = "--json", description = "Print the grant as one JSON object on one line.")
    boolean json;

    @Override
    public Integer call() throws InterruptedException {
        CompletableFuture<String> stop = Signals.termination();
        try (TenureClient tenure = client.client();
                Session session = tenure.openSession()) {
            Lease lease = waiting.acquire(session, lock, policy);
            print(lease);
            return hold(lease, lock, client, policy, stop);
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    /**
     * Holds {@code lease} until {@code stop} fires (releases it, exit 0) or it is lost (exit 4);
     * also {@code tenure elect}'s hold, so a leader stops exactly as a holder does.
     */
    static int hold(
            Lease lease, String lock, ClientOptions client, PolicyOptions policy, CompletableFuture<String> stop)
            throws InterruptedException {
        try {
            if (policy.manual()) {
                renewPerInputLine(lease);
            }
            // Not the loss but the first invalidity, and before it by the time an exit takes: a
            // lease whose connection is in doubt may pass to another holder once the node's grace
            // ends, and this process must be gone by then.
            Duration lead = LeaseWatch.exitLead(LeaseWatch.window(client, policy));
            Object first = LeaseWatch.firstOf(lease, lead, stop, LeaseWatch.invalidity(lease));
            if (first == null || first == LeaseWatch.IN_DOUBT) {
                ExitCodes.haltLeaseLost("lease on " + lock + " (token " + lease.token() + ") lost: "
                        + LeaseWatch.IN_DOUBT + " (no answer on the connection: less than "
                        + lead.toMillis() + " ms of its validity left)");
            }
            if (first instanceof LossReason reason) {
                throw new CliException(
                        ExitCodes.LEASE_LOST, "lease on " + lock + " (token " + lease.token() + ") lost: " + reason);
            }
            lease.release();
            return ExitCodes.OK;
        } catch (TenureException e) {
            throw Failures.of(e);
        }
    }

    /** A heartbeat from whatever feeds our stdin: each line renews the MANUAL lease once. */
    private static void renewPerInputLine(Lease lease) {
        LineHeartbeat.start("tenure-renew-on-input", System.in, lease);
    }

    private void print(Lease lease) {
        if (json) {
            System.out.println(Json.line(Json.grant(lease)));
        } else {
            System.out.printf(
                    "acquired %s token %d session %d ttl %dms previous %s%s%n",
                    lease.lock(),
                    lease.token(),
                    lease.sessionId(),
                    lease.sessionTtl().toMillis(),
                    lease.previousEnd().map(Enum::name).orElse("NONE"),
                    lease.previousToken() == 0 ? "" : " (token " + lease.previousToken() + ")");
        }
        System.out.flush();
    }
}
