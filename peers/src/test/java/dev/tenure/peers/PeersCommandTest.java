package dev.tenure.peers;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.net.HostAndPort;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * Bad input is refused before any connection is opened, with exit 2 and a message that names the
 * option. The endpoints given point at a port nothing listens on (9), so that a check that let the
 * input through would surface as a connection failure (exit 1), not as a pass.
 */
class PeersCommandTest {

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return PeersCommand.run(new PrintWriter(err, true), args);
    }

    @Test
    void refusesNoPeerAndTwoPeers() {
        assertThat(run("uncontended", "--duration", "1s")).isEqualTo(PeersCommand.BAD_INPUT);
        assertThat(run("uncontended", "--etcd", "127.0.0.1:9", "--zookeeper", "127.0.0.1:9"))
                .isEqualTo(PeersCommand.BAD_INPUT);
        assertThat(err.toString()).contains("name exactly one peer: --etcd HOST:PORT[,...] or --zookeeper");
    }

    @Test
    void refusesAnEndpointWithoutAPort() {
        assertThat(run("uncontended", "--zookeeper", "127.0.0.1:9,127.0.0.1")).isEqualTo(PeersCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--zookeeper takes host:port[,host:port...]; '127.0.0.1' is not host:port");
    }

    @Test
    void refusesAWorkloadItDoesNotRunAndAClientCountItsWorkloadDoesNotTake() {
        assertThat(run("contended", "--etcd", "127.0.0.1:9")).isEqualTo(PeersCommand.BAD_INPUT);
        assertThat(err.toString()).contains("unknown workload 'contended'; choose from uncontended, parallel");
        assertThat(run("parallel", "uncontended", "--clients", "4", "--etcd", "127.0.0.1:9"))
                .isEqualTo(PeersCommand.BAD_INPUT);
        assertThat(err.toString()).contains("uncontended runs exactly one client (--clients 1)");
    }

    @Test
    void refusesATtlThatIsNotWholeSeconds() {
        assertThat(run("uncontended", "--ttl", "1500ms", "--etcd", "127.0.0.1:9"))
                .isEqualTo(PeersCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--ttl must be whole seconds");
    }

    @Test
    void readsEveryEndpointOfAList() {
        assertThat(PeersCommand.endpoints("--etcd", "127.0.0.1:2379, localhost:22379"))
                .containsExactly(HostAndPort.fromParts("127.0.0.1", 2379), HostAndPort.fromParts("localhost", 22379));
    }
}
