package dev.tenure.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.core.Limits;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A forced release is an admin act. A node without an ACL has no admins (its callers are
 * anonymous), so it refuses one unless its operator opted in; with an ACL, {@code admin} decides.
 * A refused release never reaches the log.
 */
class ForcedReleaseRuleTest {
    private static final ReleaseRequest FORCED = ReleaseRequest.newBuilder()
            .setSessionId(1)
            .setRequestId(1)
            .setLock("orders/1")
            .setToken(7)
            .setForce(true)
            .build();
    private static final ReleaseRequest OWN = FORCED.toBuilder().setForce(false).build();

    private final List<LogCommand> submitted = new ArrayList<>();
    private final Gateway gateway = new Gateway(
            new LogPort() {
                @Override
                public CompletableFuture<Reply> submit(LogCommand.Builder command) {
                    submitted.add(command.build());
                    return new CompletableFuture<>(); // never committed: the test looks at what was sent
                }

                @Override
                public CompletableFuture<Boolean> renewSession(long sessionId) {
                    return new CompletableFuture<>();
                }
            },
            new Scheduler() {
                @Override
                public void later(long delayMs, Runnable action) {}

                @Override
                public void soon(Runnable action) {}
            },
            Limits.defaults(),
            new Gateway.Listener() {});

    @Test
    void withoutAnAclAForcedReleaseIsRefusedNamingBothWaysToAllowItAndNothingReachesTheLog() {
        StatusRuntimeException refused = release(FORCED, null);
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(refused.getStatus().getDescription())
                .isEqualTo(Gateway.FORCED_RELEASE_NEEDS_AN_ACL)
                .contains("--acl")
                .contains("--unsafe-allow-forced-release");
        assertThat(submitted).isEmpty();
    }

    @Test
    void withoutAnAclAReleaseOfOnesOwnLeaseStillGoesToTheLog() {
        assertThat(release(OWN, null)).isNull();
        assertThat(submitted).extracting(c -> c.getRelease().getForce()).containsExactly(false);
    }

    @Test
    void theUnsafeOptInLetsAnyCallerOfANodeWithoutAnAclForce() {
        gateway.allowForcedReleaseWithoutAcl(true);
        assertThat(release(FORCED, null)).isNull();
        assertThat(submitted).extracting(c -> c.getRelease().getForce()).containsExactly(true);
    }

    @Test
    void withAnAclAdminDecidesWhateverTheOptInSays() {
        gateway.acl(Acl.of(Map.of(
                "ops", List.of(new Acl.Grant("", EnumSet.of(Permission.ADMIN))),
                "worker", List.of(new Acl.Grant("orders/", EnumSet.of(Permission.ACQUIRE))))));
        assertThat(release(FORCED, "ops")).isNull();
        assertThat(release(FORCED, "worker").getStatus().getDescription())
                .isEqualTo("principal worker may not admin 'orders/1'");
        gateway.allowForcedReleaseWithoutAcl(true);
        assertThat(release(FORCED, "worker").getStatus().getDescription())
                .as("the opt-in is for nodes without an ACL only")
                .isEqualTo("principal worker may not admin 'orders/1'");
        assertThat(submitted).hasSize(1);
    }

    /** Sends {@code request} as {@code principal} (null: none); the refusal, or null if it went on. */
    private StatusRuntimeException release(ReleaseRequest request, String principal) {
        StatusRuntimeException[] refusal = {null};
        Answer<ReleaseResponse> answer = new Answer<>() {
            @Override
            public void ok(ReleaseResponse response) {}

            @Override
            public void fail(StatusRuntimeException error) {
                refusal[0] = error;
            }

            @Override
            public boolean cancelled() {
                return false;
            }

            @Override
            public void onCancel(Runnable handler) {}
        };
        Runnable call = () -> gateway.release(request, answer);
        if (principal == null) {
            call.run();
        } else {
            Principal.bind(Context.current(), principal).run(call);
        }
        return refusal[0];
    }
}
