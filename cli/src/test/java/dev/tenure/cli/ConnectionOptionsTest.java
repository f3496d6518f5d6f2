package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.server.config.ConnectionLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What `tenure server`'s connection options give the node, and what they refuse. */
class ConnectionOptionsTest {

    private static ServerCommand parse(String... args) {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void withoutOptionsTheNodeGetsTheDefaults() {
        assertThat(parse().connectionLimits()).isEqualTo(ConnectionLimits.defaults());
    }

    @Test
    void eachOptionSetsItsLimit() {
        ConnectionLimits limits = parse(
                        "--connections-max", "100",
                        "--connections-per-address-max", "10",
                        "--handshake-timeout", "2s",
                        "--connection-idle-timeout", "5m",
                        "--calls-per-connection-max", "50",
                        "--calls-in-flight-max", "20",
                        "--unsent-bytes-max", "1MiB",
                        "--node-unsent-bytes-max", "8MiB",
                        "--request-bytes-max", "2MiB",
                        "--node-request-bytes-max", "32MiB",
                        "--log-bytes-per-second-max", "4MiB")
                .connectionLimits();
        assertThat(limits)
                .isEqualTo(new ConnectionLimits(
                        100,
                        10,
                        Duration.ofSeconds(2),
                        Duration.ofMinutes(5),
                        50,
                        20,
                        1 << 20,
                        8 << 20,
                        2 << 20,
                        32 << 20,
                        4 << 20));
    }

    @Test
    void sizesTakeBytesOrBinaryUnits() {
        SizeConverter sizes = new SizeConverter();
        assertThat(sizes.convert("4096")).isEqualTo(4096L);
        assertThat(sizes.convert("512KiB")).isEqualTo(512L << 10);
        assertThat(sizes.convert("2GiB")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> sizes.convert("16MB"))
                .hasMessage(
                        "'16MB' is not a size; write a whole number of bytes, or one with KiB, MiB or GiB, e.g. 16MiB");
    }

    @Test
    void aBoundThatIsNotPositiveIsRefusedByName() {
        assertThatThrownBy(() -> parse("--connections-max", "0").connectionLimits())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connectionsMax must be positive, was 0");
        assertThatThrownBy(() -> parse("--connections-per-address-max", "0").connectionLimits())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connectionsPerAddressMax must be positive, was 0");
    }

    @Test
    void withoutItsOptionOneAddressMayHoldAsManyConnectionsAsTheNode() {
        assertThat(parse("--connections-max", "100").connectionLimits().connectionsPerAddressMax())
                .isEqualTo(100);
    }
}
