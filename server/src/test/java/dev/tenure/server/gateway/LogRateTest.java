package dev.tenure.server.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.Code;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.config.ConnectionLimits;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client may add at most logBytesPerSecondMax bytes of commands to the log per second: past
 * it, its writes are refused RESOURCE_EXHAUSTED naming the limit, before the log.
 */
class LogRateTest {
    /** One 64 KiB put a second, and a little more. */
    static final long LOG_BYTES_PER_SECOND_MAX = 70_000;

    @RegisterExtension
    static final NodeExtension node =
            NodeExtension.lone(ConnectionLimits.defaults().withLogBytesPerSecondMax(LOG_BYTES_PER_SECOND_MAX));

    @Test
    void putsPastLogBytesPerSecondMaxAreRefusedNamingTheLimit() {
        // Ten puts back to back would need about nine seconds of the bucket's refill to pass.
        List<String> refusals = new ArrayList<>();
        int accepted = 0;
        for (int i = 0; i < 10; i++) {
            try {
                assertThat(node.stub().kvPut(RefusedWritesTest.put("rate-" + i)).getCode())
                        .isEqualTo(Code.CODE_OK);
                accepted++;
            } catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                refusals.add(e.getStatus().getDescription());
            }
        }
        assertThat(accepted).as("the first put fits in a full bucket").isGreaterThanOrEqualTo(1);
        assertThat(refusals).isNotEmpty();
        assertThat(refusals.get(0))
                .startsWith("logBytesPerSecondMax (" + LOG_BYTES_PER_SECOND_MAX + ") reached by address 127.0.0.1");
    }
}
