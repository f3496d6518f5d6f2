package dev.tenure.cli;

import dev.tenure.client.AcquireOptions;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** {@code --lock-delay D --max-hold D --renew auto|manual --lease-ttl D}: the policy of the grant. */
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

    boolean manual() {
        return switch (renew) {
            case "auto" -> false;
            case "manual" -> true;
            default -> throw new IllegalArgumentException("--renew must be auto or manual, was " + renew);
        };
    }

    AcquireOptions.Builder options() {
        AcquireOptions.Builder b = AcquireOptions.builder().lockDelay(lockDelay).maxHold(maxHold);
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
