package dev.tenure.server.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.core.Limits;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.config.ConnectionLimits;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A put the node's latest view of its state shows cannot fit is refused before the log
 * (RESOURCE_EXHAUSTED, naming the limit), so it costs the log nothing; one that may fit is still
 * decided at apply. The view follows the state: room freed by a delete is there for the next put.
 */
class RefusedWritesTest {
    /** Three 64 KiB values fit, a fourth does not. */
    static final long KV_BYTES_MAX = 3 * (64 * 1024 + 16);

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(
            ConnectionLimits.defaults(), c -> c.withLimits(Limits.defaults().with("kvBytesMax", KV_BYTES_MAX)));

    @Test
    void aPutOverKvBytesMaxIsRefusedBeforeTheLogAndRoomFreedIsUsedAtOnce() {
        for (String key : new String[] {"full-1", "full-2", "full-3"}) {
            assertThat(node.stub().kvPut(put(key)).getCode()).isEqualTo(Code.CODE_OK);
        }

        assertThatThrownBy(() -> node.stub().kvPut(put("full-4")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription())
                            .startsWith("kvBytesMax (" + KV_BYTES_MAX + ") reached")
                            .contains("refused before the log, nothing changed");
                });
        assertThat(node.stub()
                        .kvGet(KvGetRequest.newBuilder().setKey("full-4").build())
                        .getCode())
                .isEqualTo(Code.CODE_NOT_FOUND);

        // A full store can still be rewritten in place: the view knows what each key holds.
        assertThat(node.stub().kvPut(put("full-2")).getCode()).isEqualTo(Code.CODE_OK);

        // A delete acknowledged frees room in the view before its answer leaves.
        assertThat(node.stub()
                        .kvDelete(KvDeleteRequest.newBuilder().setKey("full-1").build())
                        .getCode())
                .isEqualTo(Code.CODE_OK);
        assertThat(node.stub().kvPut(put("full-4")).getCode()).isEqualTo(Code.CODE_OK);
    }

    static KvPutRequest put(String key) {
        return KvPutRequest.newBuilder()
                .setKey(key)
                .setValue(ByteString.copyFrom(new byte[64 * 1024]))
                .build();
    }
}
