package dev.tenure.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.ProclaimRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.core.Checkpoint;
import dev.tenure.core.Code;
import dev.tenure.core.Command;
import dev.tenure.core.ElectionValue;
import dev.tenure.core.Grant;
import dev.tenure.core.Policy;
import dev.tenure.core.Result;
import dev.tenure.core.StaleWrites;
import dev.tenure.core.TenureEnd;
import dev.tenure.core.TenureRecord;
import dev.tenure.log.v1.LogCommand;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one mapping between the log's messages and the core's values: every value, both ways. */
class WireMappingTest {

    @Test
    void everyTenureEndMapsToTheWireValueOfItsNameAndBack() {
        for (TenureEnd end : TenureEnd.values()) {
            int wire = WireMapping.toWire(end);
            String wireName = AcquireResponse.newBuilder()
                    .getGrantBuilder()
                    .setPreviousEndValue(wire)
                    .getPreviousEnd()
                    .name();
            assertThat(wireName).isEqualTo("TENURE_END_" + end.name());
            assertThat(WireMapping.toCore(wire)).isEqualTo(end);
        }
        assertThat(WireMapping.toCore(99)).as("an unknown number").isEqualTo(TenureEnd.NONE);
    }

    @Test
    void everyCodeMapsToTheWireValueOfItsName() {
        for (Code code : Code.values()) {
            String wireName = AcquireResponse.newBuilder()
                    .setCodeValue(WireMapping.toWire(code))
                    .getCode()
                    .name();
            assertThat(wireName).isEqualTo("CODE_" + code.name());
        }
    }

    @Test
    void aGrantKeepsEveryFieldIncludingThePreviousCheckpoint() {
        Grant grant = new Grant(
                "a",
                9,
                4,
                1_000,
                5_000,
                TenureEnd.DISCONNECTED,
                8,
                new Checkpoint(new byte[] {1, 2}, 8, 900),
                Policy.of(100, 60_000, 0));
        LogCommand acquire = LogCommand.newBuilder()
                .setAcquire(AcquireRequest.newBuilder()
                        .setSessionId(4)
                        .setRequestId(1)
                        .setLock("a"))
                .build();
        var g = WireMapping.toReply(acquire, new Result.Granted(grant))
                .getAcquire()
                .getGrant();
        assertThat(g.getLock()).isEqualTo("a");
        assertThat(g.getToken()).isEqualTo(9);
        assertThat(g.getSessionId()).isEqualTo(4);
        assertThat(g.getGrantedAtMs()).isEqualTo(1_000);
        assertThat(g.getTtlMs()).isEqualTo(5_000);
        assertThat(g.getPreviousEnd().name()).isEqualTo("TENURE_END_DISCONNECTED");
        assertThat(g.getPreviousToken()).isEqualTo(8);
        assertThat(g.getPreviousCheckpoint().getValue().toByteArray()).containsExactly(1, 2);
        assertThat(g.getPreviousCheckpoint().getToken()).isEqualTo(8);
        assertThat(g.getPreviousCheckpoint().getWrittenAtMs()).isEqualTo(900);
        assertThat(g.getPolicy().getLockDelayMs()).isEqualTo(100);
        assertThat(g.getPolicy().getMaxHoldMs()).isEqualTo(60_000);
    }

    @Test
    void aCampaignCarriesItsValueToTheCoreAndTheGrantBack() {
        LogCommand campaign = LogCommand.newBuilder()
                .setAcquire(AcquireRequest.newBuilder()
                        .setSessionId(4)
                        .setRequestId(1)
                        .setLock("e")
                        .setWaitMs(-1)
                        .setValue(ByteString.copyFromUtf8("me")))
                .build();
        ElectionValue me = ElectionValue.of("me".getBytes(StandardCharsets.UTF_8));
        assertThat(WireMapping.toCommand(campaign))
                .isEqualTo(new Command.Acquire(4, 1, "e", -1, Policy.NONE, 0, 1, false, me));
        Grant grant = new Grant("e", 9, 4, 1_000, 5_000, TenureEnd.NONE, 0, null, Policy.NONE, me);
        var g = WireMapping.toReply(campaign, new Result.Granted(grant))
                .getAcquire()
                .getGrant();
        assertThat(g.getValue().toStringUtf8()).isEqualTo("me");
        assertThat(WireMapping.holder(new Result.Holder(4, 9, 1_000, "c", Policy.NONE, Long.MAX_VALUE, "", false, me))
                        .getValue()
                        .toStringUtf8())
                .isEqualTo("me");
    }

    @Test
    void aProclaimKeepsItsFieldsAndARejectionItsCodeAndCurrentToken() {
        LogCommand proclaim = LogCommand.newBuilder()
                .setProclaim(ProclaimRequest.newBuilder()
                        .setSessionId(3)
                        .setRequestId(5)
                        .setLock("e")
                        .setToken(7)
                        .setValue(ByteString.copyFromUtf8("v2")))
                .build();
        assertThat(WireMapping.toCommand(proclaim))
                .isEqualTo(new Command.Proclaim(3, 5, "e", 7, ElectionValue.of("v2".getBytes(StandardCharsets.UTF_8))));
        var reply = WireMapping.toReply(proclaim, new Result.Rejected(Code.NOT_OWNER, "not yours", 8))
                .getProclaim();
        assertThat(reply.getCode().name()).isEqualTo("CODE_NOT_OWNER");
        assertThat(reply.getCurrentToken()).isEqualTo(8);
        assertThat(WireMapping.toReply(proclaim, new Result.Ok())
                        .getProclaim()
                        .getCode()
                        .name())
                .isEqualTo("CODE_OK");
    }

    @Test
    void aReleaseKeepsItsFieldsAndARejectionItsCodeAndCurrentToken() {
        LogCommand release = LogCommand.newBuilder()
                .setRelease(ReleaseRequest.newBuilder()
                        .setSessionId(3)
                        .setRequestId(5)
                        .setLock("a")
                        .setToken(7))
                .build();
        assertThat(WireMapping.toCommand(release)).isEqualTo(new Command.Release(3, 5, "a", 7, false));
        var reply = WireMapping.toReply(release, new Result.Rejected(Code.NOT_OWNER, "not yours", 8))
                .getRelease();
        assertThat(reply.getCode().name()).isEqualTo("CODE_NOT_OWNER");
        assertThat(reply.getMessage()).isEqualTo("not yours");
        assertThat(reply.getCurrentToken()).isEqualTo(8);
    }

    @Test
    @SuppressWarnings("deprecation")
    void aForcedReleaseIsForcedAndSoIsTheDeprecatedAnySession() {
        ReleaseRequest base = ReleaseRequest.newBuilder()
                .setSessionId(3)
                .setRequestId(5)
                .setLock("a")
                .setToken(7)
                .build();
        assertThat(WireMapping.toCommand(LogCommand.newBuilder()
                        .setRelease(base.toBuilder().setForce(true))
                        .build()))
                .isEqualTo(new Command.Release(3, 5, "a", 7, true));
        assertThat(WireMapping.toCommand(LogCommand.newBuilder()
                        .setRelease(base.toBuilder().setAnySession(true))
                        .build()))
                .isEqualTo(new Command.Release(3, 5, "a", 7, true));
    }

    @Test
    void aStatusNamesTheForcerOfAForcedEnd() {
        LogCommand status = LogCommand.newBuilder()
                .setLockStatus(LockStatusRequest.newBuilder().setLock("a"))
                .build();
        var view = new Result.LockView(
                "a",
                null,
                List.of(),
                List.of(
                        new TenureRecord(1, 2, 10, 20, TenureEnd.RELEASED),
                        new TenureRecord(3, 4, 20, 30, TenureEnd.REVOKED, 5, "ops")),
                40,
                0,
                null,
                StaleWrites.NONE);
        var history = WireMapping.toReply(status, view).getLockStatus().getHistoryList();
        assertThat(history.get(0).getForcedBySessionId()).isZero();
        assertThat(history.get(0).getForcedByClient()).isEmpty();
        assertThat(history.get(1).getEnd().name()).isEqualTo("TENURE_END_REVOKED");
        assertThat(history.get(1).getForcedBySessionId()).isEqualTo(5);
        assertThat(history.get(1).getForcedByClient()).isEqualTo("ops");
    }

    @Test
    void aStatusRequestNamesItsLock() {
        LogCommand status = LogCommand.newBuilder()
                .setLockStatus(LockStatusRequest.newBuilder().setLock("a"))
                .build();
        assertThat(WireMapping.toCommand(status)).isEqualTo(new Command.Status("a"));
    }
}
