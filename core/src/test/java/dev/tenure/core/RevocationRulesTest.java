package dev.tenure.core;

import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.ReinstatePrincipal;
import dev.tenure.core.Command.ResumeSession;
import dev.tenure.core.Command.RevokePrincipal;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.SessionOpened;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A revoked principal: every session ends REVOKED, its locks wait for its deadline, a barred one opens nothing. */
class RevocationRulesTest {
    private static final long TTL_MS = 10_000;

    private final Fixture f = new Fixture();

    private long open(String principal) {
        return ((SessionOpened) f.apply(new OpenSession(TTL_MS, "c", SecretHash.NONE, principal))).sessionId();
    }

    @Test
    void everySessionOfThePrincipalEndsRevokedAndItsLocksPassOnlyAtTheSessionsDeadline() {
        long worker = open("worker");
        long idle = open("worker");
        long other = open("ops");
        long token = f.grant(worker, 1, "x").token();
        assertThat(f.apply(new Acquire(other, 1, "x", -1))).isInstanceOf(Queued.class);
        f.at(4_000, new KeepAlive(List.of(worker))); // the worker's deadline is now 14_000
        f.events();

        f.at(5_000, new RevokePrincipal("worker", false));

        assertThat(f.events())
                .containsExactly(
                        new Event.LeaseEnded(worker, "x", token, TenureEnd.REVOKED),
                        new Event.SessionEnded(worker, TenureEnd.REVOKED),
                        new Event.SessionEnded(idle, TenureEnd.REVOKED));
        LockView x = (LockView) f.apply(new Status("x"));
        assertThat(x.holder())
                .as("nobody: the revoked holder may trust its lease until 14_000")
                .isNull();
        assertThat(x.delayUntilMs()).isEqualTo(14_000);
        assertThat(x.history().get(x.history().size() - 1).end()).isEqualTo(TenureEnd.REVOKED);
        assertThat(rejected(f.apply(new Put(other, 2, "k", new byte[] {1}, "x", token)))
                        .code())
                .as("the revoked token is stale at once")
                .isEqualTo(Code.STALE_TOKEN);

        f.at(10_000, new KeepAlive(List.of(other)));
        f.advanceTo(13_999);
        assertThat(f.events()).isEmpty();
        f.advanceTo(14_000);
        assertThat(f.events()).singleElement().isInstanceOfSatisfying(Event.WaitResolved.class, w -> {
            assertThat(w.sessionId()).isEqualTo(other);
            assertThat(w.result()).isInstanceOf(Granted.class);
        });
    }

    @Test
    void aBarredPrincipalOpensAndResumesNothingUntilReinstated() {
        long before = open("worker");
        f.apply(new RevokePrincipal("worker", true));
        f.events();
        assertThat(rejected(f.apply(new OpenSession(TTL_MS, "c", SecretHash.NONE, "worker")))
                        .message())
                .contains("principal worker was revoked");
        assertThat(rejected(f.apply(new ResumeSession(before, 0, "worker"))).message())
                .as("a resume raced by the revocation learns why")
                .contains("principal worker was revoked");
        long ops = open("ops");
        assertThat(rejected(f.apply(new ResumeSession(ops, 0, "worker"))).code())
                .as("a barred principal resumes no session, whoever's")
                .isEqualTo(Code.DENIED);

        f.apply(new ReinstatePrincipal("worker"));
        assertThat(f.apply(new OpenSession(TTL_MS, "c", SecretHash.NONE, "worker")))
                .isInstanceOf(SessionOpened.class);
    }

    @Test
    void aPrincipalOnlyGivenLessMayOpenAgainAndAnEmptyNameIsRefused() {
        open("worker");
        f.apply(new RevokePrincipal("worker", false));
        assertThat(f.apply(new OpenSession(TTL_MS, "c", SecretHash.NONE, "worker")))
                .isInstanceOf(SessionOpened.class);
        assertThat(rejected(f.apply(new RevokePrincipal("", true))).code()).isEqualTo(Code.INVALID);
        assertThat(rejected(f.apply(new ReinstatePrincipal(""))).code()).isEqualTo(Code.INVALID);
    }
}
