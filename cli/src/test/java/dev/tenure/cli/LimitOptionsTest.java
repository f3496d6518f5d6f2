package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.core.Limits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** `tenure server --limit NAME=VALUE`: names as refusals give them, sizes with binary units. */
class LimitOptionsTest {

    @Test
    void eachLimitIsSetByTheNameItsRefusalGivesWithSizesInBinaryUnits() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("kvBytesMax", "64MiB");
        settings.put("sessionsMax", "5_000");
        settings.put("kvBytesPerPrincipalMax", "1 GiB");
        settings.put("checkpointTotalBytesMax", "512KiB");
        Limits l = LimitOptions.apply(Limits.defaults(), settings);
        assertThat(l.kvBytesMax()).isEqualTo(64L << 20);
        assertThat(l.sessionsMax()).isEqualTo(5_000);
        assertThat(l.principal().kvBytesMax()).isEqualTo(1L << 30);
        assertThat(l.checkpointTotalBytesMax()).isEqualTo(512L << 10);
        assertThat(l.locksMax()).isEqualTo(Limits.defaults().locksMax());
    }

    @Test
    void anUnknownNameAValueThatIsNoNumberOrOneTheLimitCannotTakeIsBadInputNamingIt() {
        assertThatThrownBy(() -> LimitOptions.apply(Limits.defaults(), Map.of("kvBytes", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--limit kvBytes: no such limit; the limits are sessionTtlMsMin, ")
                .hasMessageContaining("kvBytesMax");
        assertThatThrownBy(() -> LimitOptions.apply(Limits.defaults(), Map.of("kvBytesMax", "1TB")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--limit kvBytesMax=1TB: not a whole number (sizes may end in KiB, MiB or GiB)");
        assertThatThrownBy(() -> LimitOptions.apply(Limits.defaults(), Map.of("sessionsMax", "4GiB")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionsMax 4294967296 is out of range (at most 2147483647)");
        assertThatThrownBy(() -> LimitOptions.apply(Limits.defaults(), Map.of("kvBytesMax", "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kvBytesMax -1: byte budgets must not be negative");
    }

    @Test
    void theReadLeaseIsTheLimitReadLeaseMsWholeMillisecondsUpToOneSecond() {
        assertThat(LimitOptions.withReadLease(Limits.defaults(), Map.of(), Duration.ofMillis(750))
                        .readLeaseMs())
                .isEqualTo(750);
        assertThat(LimitOptions.withReadLease(Limits.defaults(), Map.of(), null))
                .isEqualTo(Limits.defaults());
        assertThat(LimitOptions.apply(Limits.defaults(), Map.of("readLeaseMs", "800"))
                        .readLeaseMs())
                .isEqualTo(800);
        assertThatThrownBy(() -> LimitOptions.withReadLease(Limits.defaults(), Map.of(), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--read-lease 2000ms: a whole number of milliseconds from 0s (off) to 1000ms");
        assertThatThrownBy(() -> LimitOptions.withReadLease(Limits.defaults(), Map.of(), Duration.ofNanos(1_500_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--read-lease 1ms: a whole number of milliseconds");
        assertThatThrownBy(() -> LimitOptions.withReadLease(
                        Limits.defaults(), Map.of("readLeaseMs", "500"), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--read-lease 1000ms and --limit readLeaseMs=500 set the same limit to different values:"
                        + " give one");
        assertThat(LimitOptions.withReadLease(Limits.defaults(), Map.of("readLeaseMs", "500"), Duration.ofMillis(500))
                        .readLeaseMs())
                .as("the same value both ways, as --print-config writes it")
                .isEqualTo(500);
        assertThatThrownBy(() -> LimitOptions.apply(Limits.defaults(), Map.of("readLeaseMs", "1001")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("readLeaseMs 1001: readLeaseMs must be 0 (off) to 1000");
    }
}
