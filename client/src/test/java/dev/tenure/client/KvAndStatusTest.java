package dev.tenure.client;

import static dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_REVOKED;
import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Holder;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.Member;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureRecord;
import dev.tenure.api.v1.Waiter;
import dev.tenure.client.fence.FencedStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fenced KV store and the read-only status calls. */
class KvAndStatusTest {
    private final Harness h = new Harness(1);
    private Session session;

    @BeforeEach
    void setUp() {
        session = h.client().openSession();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    @Test
    void fencedPutCarriesTheLeasesLockAndToken() {
        Lease lease = session.acquire("a");
        session.kv().put("k", bytes("v"), lease.lock(), lease.token());
        session.kv().put("k", bytes("w"));

        var puts = h.fake.requests(KvPutRequest.class);
        assertThat(puts.get(0).getFence().getLock()).isEqualTo("a");
        assertThat(puts.get(0).getFence().getToken()).isEqualTo(lease.token());
        assertThat(puts.get(0).getRequestId()).isEqualTo(2);
        assertThat(puts.get(1).hasFence()).isFalse();
    }

    @Test
    void staleTokenIsATypedRejection() {
        h.fake.onPut = r -> KvPutResponse.newBuilder()
                .setCode(Code.CODE_STALE_TOKEN)
                .setCurrentToken(12)
                .build();
        assertThatThrownBy(() -> session.kv().put("k", bytes("v"), "a", 11))
                .isInstanceOfSatisfying(
                        StaleTokenException.class,
                        e -> assertThat(e.currentToken()).isEqualTo(12));
        assertThatThrownBy(() -> FencedStore.of(session.kv()).checkAndWrite("k", "a", 11, bytes("v")))
                .as("the KV as a fenced store refuses with the same exception")
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("k");
                    assertThat(e.token()).isEqualTo(11);
                    assertThat(e.currentToken()).isEqualTo(12);
                });
        h.fake.onPut = r -> KvPutResponse.newBuilder()
                .setCode(Code.CODE_LIMIT)
                .setMessage("keysMax 10000 reached")
                .build();
        assertThatThrownBy(() -> session.kv().put("k", bytes("v")))
                .is(code(TenureException.Code.LIMIT_EXCEEDED))
                .hasMessageContaining("keysMax");
    }

    @Test
    void anUnfencedWriteToAFencedKeyIsATypedRejectionAndTheOverrideIsExplicit() {
        String refused = "key k was last written fenced by lock a (token 4): ...";
        h.fake.onPut = r -> r.getOverrideFence()
                ? KvPutResponse.newBuilder().setCode(Code.CODE_OK).build()
                : KvPutResponse.newBuilder()
                        .setCode(Code.CODE_KEY_FENCED)
                        .setMessage(refused)
                        .build();
        h.fake.onDelete = r -> r.getOverrideFence()
                ? KvDeleteResponse.newBuilder().setCode(Code.CODE_OK).build()
                : KvDeleteResponse.newBuilder()
                        .setCode(Code.CODE_KEY_FENCED)
                        .setMessage(refused)
                        .build();
        assertThatThrownBy(() -> h.client().kv().put("k", bytes("v")))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.code()).isEqualTo(TenureException.Code.KEY_FENCED);
                    assertThat(e.resource()).isEqualTo("k");
                })
                .hasMessage(refused);
        assertThatThrownBy(() -> h.client().kv().delete("k")).is(code(TenureException.Code.KEY_FENCED));
        assertThatThrownBy(() -> session.kv().put("k", bytes("v"))).is(code(TenureException.Code.KEY_FENCED));
        h.client().kv().putOverridingFence("k", bytes("v"));
        assertThat(h.client().kv().deleteOverridingFence("k")).isTrue();

        var puts = h.fake.requests(KvPutRequest.class);
        assertThat(puts).extracting(KvPutRequest::getOverrideFence).containsExactly(false, false, true);
        assertThat(puts.get(2).hasFence()).isFalse();
        assertThat(h.fake.requests(KvDeleteRequest.class))
                .extracting(KvDeleteRequest::getOverrideFence)
                .containsExactly(false, true);
    }

    @Test
    void deleteSaysWhetherTheKeyExisted() {
        assertThat(session.kv().delete("k")).isTrue();
        h.fake.onDelete =
                r -> KvDeleteResponse.newBuilder().setCode(Code.CODE_NOT_FOUND).build();
        assertThat(session.kv().delete("k", "a", 3)).isFalse();
        assertThat(h.fake.requests(KvDeleteRequest.class).get(1).getFence().getToken())
                .isEqualTo(3);
    }

    @Test
    void getReturnsTheEntryWithItsWriter() {
        assertThat(h.client().kv().get("k")).isEmpty();
        h.fake.onGet = r -> KvGetResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setValue(ByteString.copyFromUtf8("v"))
                .setToken(9)
                .setLock("a")
                .setWrittenAtMs(5)
                .setVersion(3)
                .setEphemeral(true)
                .setEphemeralSessionId(7)
                .build();
        KvEntry entry = session.kv().get("k").orElseThrow();
        assertThat(entry).isEqualTo(new KvEntry("k", bytes("v"), 9, "a", Instant.ofEpochMilli(5), 3, 7));
        assertThat(entry.ephemeral()).isTrue();
    }

    @Test
    void lockStatusMirrorsTheResponse() {
        h.fake.onLockStatus = r -> LockStatusResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setLock("a")
                .setNowMs(100)
                .setHolder(Holder.newBuilder()
                        .setSessionId(7)
                        .setToken(70)
                        .setSinceMs(50)
                        .setClientName("java 1@h"))
                .addWaiters(Waiter.newBuilder().setSessionId(8).setSinceMs(60).setClientName("w"))
                .addHistory(TenureRecord.newBuilder()
                        .setSessionId(6)
                        .setToken(60)
                        .setGrantedAtMs(10)
                        .setEndedAtMs(40)
                        .setEnd(TENURE_END_EXPIRED))
                .addHistory(TenureRecord.newBuilder()
                        .setSessionId(7)
                        .setToken(65)
                        .setGrantedAtMs(40)
                        .setEndedAtMs(45)
                        .setEnd(TENURE_END_REVOKED)
                        .setForcedBySessionId(9)
                        .setForcedByClient("ops"))
                .build();
        LockStatus s = h.client().status("a");
        assertThat(s.holder())
                .contains(new LockStatus.Holder(
                        7,
                        70,
                        at(50),
                        "java 1@h",
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ZERO,
                        Optional.empty(),
                        "",
                        false));
        assertThat(s.waiters()).containsExactly(new LockStatus.Waiter(8, at(60), "w", ""));
        assertThat(s.history())
                .containsExactly(
                        new LockStatus.PastTenure(6, 60, at(10), at(40), LossReason.EXPIRED, 0, "", "", ""),
                        new LockStatus.PastTenure(7, 65, at(40), at(45), LossReason.REVOKED, 9, "ops", "", ""));
        assertThat(s.now()).isEqualTo(at(100));
        assertThat(s.delayUntil()).as("the wire's 0: none").isEmpty();
    }

    @Test
    void serverStatusMirrorsTheResponse() {
        h.fake.onServerStatus = r -> ServerStatusResponse.newBuilder()
                .setNodeId(2)
                .setLeaderId(1)
                .addMembers(Member.newBuilder().setId(1).setEndpoint("n1:7100").setLeader(true))
                .setHealth("ok")
                .setSessions(3)
                .setLastToken(44)
                .build();
        ServerStatus s = h.client().serverStatus();
        assertThat(s.nodeId()).isEqualTo(2);
        assertThat(s.members()).containsExactly(new ServerStatus.Member(1, "n1:7100", true));
        assertThat(s.sessions()).isEqualTo(3);
        assertThat(s.lastToken()).isEqualTo(44);
    }

    private static Instant at(long epochMs) {
        return Instant.ofEpochMilli(epochMs);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
