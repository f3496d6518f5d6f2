package dev.tenure.cli;

import dev.tenure.client.AcquireOptions;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code --lock-delay D --max-hold D --renew auto|manual --lease-ttl D --permits N --shared}: the
 * policy of the grant and the kind of lease.
 */
final class PolicyOptions {

    @Option(
            names = "--lock-delay",
            description =
                    "After this lease ends uncleanly (expired, disconnected, revoked), nobody gets the lock for D.",
            converter = DurationConverter.class)
    Duration lockDelay = Duration.ZERO;

    @Option(
            names = "--max-hold",
            description = "The lease is revoked D after the grant, renewed or not (exit 4).",
            converter = DurationConverter.class)
    Duration maxHold = Duration.ZERO;

    @Option(
            names = "--renew",
            description = "auto (default): renewed with the session; manual: see docs/cli.md.",
            defaultValue = "auto")
    String renew;

    @Option(
            names = "--lease-ttl",
            description = "With --renew manual: the lease expires D after its last renewal (default: --ttl).",
            converter = DurationConverter.class)
    @Nullable
    Duration leaseTtl;

    @Option(
            names = "--permits",
            paramLabel = "N",
            description = "A semaphore: up to N holders at once, FIFO, each with its own token. Every acquirer of"
                    + " the name must give the same N (else exit 2). Default 1: a plain lock.",
            defaultValue = "1")
    int permits = 1;

    @Option(
            names = "--shared",
            description = "A shared lease: any number of shared holders, or one exclusive; FIFO with exclusive ones.")
    boolean shared;

    boolean manual() {
        return switch (renew) {
            case "auto" -> false;
            case "manual" -> true;
            default -> throw new IllegalArgumentException("--renew must be auto or manual, was " + renew);
        };
    }

    AcquireOptions.Builder options() {
        AcquireOptions.Builder b =
                AcquireOptions.builder().lockDelay(lockDelay).maxHold(maxHold).permits(permits);
        if (shared) {
            b.shared();
        }
        if (manual()) {
            b.renew(AcquireOptions.Renew.MANUAL);
            if (leaseTtl != null) {
                b.leaseTtl(leaseTtl);
            }
        } else if (leaseTtl != null) {
            throw new IllegalArgumentException("--lease-ttl needs --renew manual");
        }
        return b;
    }
}
