package dev.tenure.core;

import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.AbandonOpen;
import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.ResumeSession;
import dev.tenure.core.Command.WithSecret;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.SessionOpened;
import dev.tenure.core.Result.SessionResumed;
import org.junit.jupiter.api.Test;

/** A session acts only for the client that opened it: every request for it shows its secret. */
class SessionSecretTest {
    private static final SecretHash OWNER = new SecretHash(0x1234, 0x5678);
    private static final SecretHash OTHER = new SecretHash(0x1234, 0x5679);

    private final Fixture f = new Fixture();

    private long openOwned() {
        return ((SessionOpened) f.apply(new OpenSession(10_000, "owner", OWNER))).sessionId();
    }

    @Test
    void theOwnerResumesAcquiresWritesAndReleasesWithItsSecret() {
        long id = openOwned();
        assertThat(f.apply(new WithSecret(OWNER, new ResumeSession(id)))).isInstanceOf(SessionResumed.class);
        Granted g = (Granted) f.apply(new WithSecret(OWNER, new Acquire(id, 1, "a", 0)));
        assertThat(f.apply(new WithSecret(
                        OWNER,
                        new Put(id, 2, "k", new byte[] {1}, "a", g.grant().token()))))
                .isEqualTo(new Result.Written(1));
        assertThat(f.apply(
                        new WithSecret(OWNER, new Release(id, 3, "a", g.grant().token(), false))))
                .isInstanceOf(Result.Ok.class);
    }

    @Test
    void aResumeWithoutTheSecretIsDeniedAndLeavesTheAttachmentAsItWas() {
        long id = openOwned();
        byte[] before = f.sm.snapshot();
        Result.Rejected r = rejected(f.apply(new WithSecret(OTHER, new ResumeSession(id))));
        assertThat(r.code()).isEqualTo(Code.DENIED);
        assertThat(r.message()).contains("session " + id).contains("belongs to another client");
        assertThat(rejected(f.apply(new ResumeSession(id))).code())
                .as("no secret shown at all")
                .isEqualTo(Code.DENIED);
        assertThat(f.sm.snapshot()).as("nothing changed").isEqualTo(before);
        assertThat(f.apply(new WithSecret(OWNER, new ResumeSession(id, 1))))
                .as("the owner's stream is still attachment 1")
                .isEqualTo(new SessionResumed(id, 10_000, 2));
    }

    @Test
    void anotherClientCanNeitherAcquireOnNorReleaseNorWriteAsTheSession() {
        long id = openOwned();
        Granted g = (Granted) f.apply(new WithSecret(OWNER, new Acquire(id, 1, "a", 0)));
        byte[] before = f.sm.snapshot();
        assertThat(rejected(f.apply(new WithSecret(OTHER, new Acquire(id, 2, "b", 0))))
                        .code())
                .isEqualTo(Code.DENIED);
        assertThat(rejected(f.apply(new WithSecret(
                                OTHER, new Release(id, 3, "a", g.grant().token(), false))))
                        .code())
                .isEqualTo(Code.DENIED);
        assertThat(rejected(f.apply(new WithSecret(
                                OTHER,
                                new Put(
                                        id,
                                        4,
                                        "k",
                                        new byte[] {1},
                                        "a",
                                        g.grant().token()))))
                        .code())
                .isEqualTo(Code.DENIED);
        assertThat(f.sm.snapshot())
                .as("nothing changed, not even the request cache")
                .isEqualTo(before);
        assertThat(f.apply(new WithSecret(OWNER, new Acquire(id, 2, "b", 0))))
                .as("request id 2 is still unused: the denied try was not remembered")
                .isInstanceOf(Granted.class);
    }

    @Test
    void theSecretHashSurvivesASnapshot() {
        long id = openOwned();
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), Limits.defaults());
        assertThat(rejected(restored.apply(f.now, new WithSecret(OTHER, new ResumeSession(id))))
                        .code())
                .isEqualTo(Code.DENIED);
        assertThat(restored.apply(f.now, new WithSecret(OWNER, new ResumeSession(id))))
                .isInstanceOf(SessionResumed.class);
    }

    @Test
    void aSessionThatDoesNotExistIsLostNotDenied() {
        assertThat(rejected(f.apply(new WithSecret(OTHER, new Acquire(99, 1, "a", 0))))
                        .code())
                .isEqualTo(Code.SESSION_LOST);
    }

    @Test
    void aSessionOpenedWithoutASecretAcceptsAnyRequest() {
        long id = f.open(10_000);
        assertThat(f.apply(new WithSecret(OTHER, new Acquire(id, 1, "a", 0)))).isInstanceOf(Granted.class);
    }

    @Test
    void anAbandonedOpenEndsTheSessionItMadeUnlessItWasResumedAndChangesNothingElse() {
        long abandoned = openOwned();
        long other = ((SessionOpened) f.apply(new OpenSession(10_000, "other", OTHER))).sessionId();
        f.events();

        assertThat(f.apply(new AbandonOpen(OWNER))).isInstanceOf(Result.Ok.class);
        assertThat(f.events()).containsExactly(new Event.SessionEnded(abandoned, TenureEnd.DISCONNECTED));
        assertThat(f.apply(new WithSecret(OTHER, new Acquire(other, 1, "a", 0))))
                .as("the other session lives on")
                .isInstanceOf(Granted.class);

        byte[] before = f.sm.snapshot();
        assertThat(f.apply(new AbandonOpen(OWNER))).as("again: nothing left").isInstanceOf(Result.Ok.class);
        assertThat(f.sm.snapshot()).as("nothing changed").isEqualTo(before);

        // A session its client resumed is known to that client: not abandoned.
        assertThat(f.apply(new WithSecret(OTHER, new ResumeSession(other)))).isInstanceOf(SessionResumed.class);
        f.events();
        assertThat(f.apply(new AbandonOpen(OTHER))).isInstanceOf(Result.Ok.class);
        assertThat(f.events()).isEmpty();

        assertThat(rejected(f.apply(new AbandonOpen(SecretHash.NONE))).code()).isEqualTo(Code.INVALID);
    }
}
