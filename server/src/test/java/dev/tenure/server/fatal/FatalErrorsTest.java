package dev.tenure.server.fatal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.core.InvariantViolation;
import dev.tenure.server.logging.LogCapture;
import dev.tenure.server.storage.CorruptDataException;
import io.aeron.archive.client.ArchiveException;
import io.aeron.cluster.client.ClusterEvent;
import io.aeron.cluster.service.ClusterTerminationException;
import io.aeron.exceptions.AeronException;
import java.nio.file.Path;
import org.agrona.concurrent.AgentTerminationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which of a node's errors are fatal, in which phase, and what the fatal line says. */
class FatalErrorsTest {
    private final RecordedFatals fatals = new RecordedFatals();
    private final LogCapture logged = LogCapture.of(FatalErrors.class);
    private final FatalErrors fatalErrors = new FatalErrors(fatals);

    @AfterEach
    void stopCapturing() {
        logged.close();
    }

    @Test
    void whileServingAnEndIsFatalAtOnce() {
        fatalErrors.serving();
        fatalErrors.ended(FatalCause.GATEWAY_STOPPED, "thread x ended");
        assertThat(fatals.lines()).containsExactly("tenure: fatal: gateway stopped (exit 13): thread x ended");
    }

    @Test
    void whileStartingTheFirstEndFailsTheStartInsteadOfEndingTheProcess() {
        fatalErrors.ended(FatalCause.MEMBER_STOPPED, "the archive stopped");
        fatalErrors.ended(FatalCause.GATEWAY_STOPPED, "a later consequence");
        assertThat(fatals.lines()).isEmpty();
        assertThatThrownBy(fatalErrors::serving)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cluster member stopped while starting: the archive stopped");
    }

    @Test
    void whileStoppingPartsEndAsTheyAreTold() {
        fatalErrors.serving();
        fatalErrors.stopping();
        fatalErrors.ended(FatalCause.MEMBER_STOPPED, "thread tenure-consensus ended");
        fatalErrors.onError(new ClusterTerminationException(true));
        fatalErrors.onError(new StackOverflowError());
        assertThat(fatals.lines()).isEmpty();
    }

    @Test
    void aWatchedThreadReportsItsEndWithWhatEndedIt() throws InterruptedException {
        fatalErrors.serving();
        run("quiet", fatalErrors.watched(FatalCause.GATEWAY_STOPPED, () -> {}));
        run("broken", fatalErrors.watched(FatalCause.GATEWAY_STOPPED, () -> {
            throw new NoClassDefFoundError("Could not initialize class sun.util.calendar.ZoneInfoFile");
        }));
        run("starved", fatalErrors.watched(FatalCause.GATEWAY_STOPPED, () -> {
            throw new OutOfMemoryError("Java heap space");
        }));
        assertThat(fatals.lines())
                .containsExactly(
                        "tenure: fatal: gateway stopped (exit 13): thread quiet ended",
                        "tenure: fatal: gateway stopped (exit 13): thread broken ended: java.lang.NoClassDefFoundError:"
                                + " Could not initialize class sun.util.calendar.ZoneInfoFile",
                        "tenure: fatal: out of memory (exit 138): thread starved ended: java.lang.OutOfMemoryError:"
                                + " Java heap space");
    }

    @Test
    void aeronErrorsThatNoAgentSurvivesAreFatalAndTheRestAreLogged() {
        fatalErrors.serving();
        fatalErrors.onError(new IllegalStateException("peer unreachable"));
        assertThat(fatals.lines()).isEmpty();
        assertThat(logged.lines())
                .containsExactly("tenure: cluster error: java.lang.IllegalStateException: peer unreachable");
        assertThat(logged.events().get(0).getLevel().toString()).isEqualTo("ERROR");

        fatalErrors.onError(new StackOverflowError());
        fatalErrors.onError(new InvariantViolation("two leases on lock a"));
        fatalErrors.onError(new AgentTerminationException("the archive stopped"));
        fatalErrors.onError(new ClusterTerminationException(true));
        fatalErrors.onError(new ClusterTerminationException(false));
        String thread = Thread.currentThread().getName();
        assertThat(fatals.lines())
                .containsExactly(
                        "tenure: fatal: cluster member stopped (exit 11): Aeron agent on thread " + thread
                                + " failed: java.lang.StackOverflowError",
                        "tenure: fatal: cluster member stopped (exit 11): Aeron agent on thread " + thread
                                + " failed: dev.tenure.core.InvariantViolation: two leases on lock a",
                        "tenure: fatal: cluster member stopped (exit 11): Aeron agent on thread " + thread
                                + " stopped: org.agrona.concurrent.AgentTerminationException: the archive stopped",
                        "tenure: fatal: cluster member stopped (exit 11): the cluster terminated on thread " + thread
                                + ", as asked (ClusterTool shutdown or abort)",
                        "tenure: fatal: cluster member stopped (exit 11): the cluster terminated on thread " + thread
                                + ", not asked to: see the cluster errors before this line");
    }

    /**
     * Aeron reports some events through the error handler with its own severity: a member that
     * restarts sees "quorum position went backwards", which must not read as a cluster error.
     */
    @Test
    void whatAeronCallsAWarningIsLoggedAsOneOnOneLine() {
        fatalErrors.serving();
        fatalErrors.onError(new ClusterEvent("quorum position went backwards"));
        fatalErrors.onError(new ArchiveException("replay not found", AeronException.Category.WARN));
        assertThat(fatals.lines()).isEmpty();
        assertThat(logged.lines())
                .containsExactly(
                        "tenure: cluster warning: quorum position went backwards",
                        "tenure: cluster warning: replay not found");
        assertThat(logged.events())
                .allSatisfy(e -> assertThat(e.getLevel().toString()).isEqualTo("WARN"));
    }

    @Test
    void anOutOfMemoryErrorFromAeronIsOutOfMemoryAndPrintsNoStack() {
        fatalErrors.serving();
        fatalErrors.onError(new OutOfMemoryError("Java heap space"));
        assertThat(fatals.lines())
                .containsExactly("tenure: fatal: out of memory (exit 138): Aeron agent on thread "
                        + Thread.currentThread().getName() + " failed: java.lang.OutOfMemoryError: Java heap space");
        assertThat(logged.lines()).isEmpty();
    }

    /**
     * A replay the archive refused for a checksum (to this member or to a peer) and a snapshot
     * that does not restore end the node with 12, while it starts too: its start would otherwise
     * wait for a replay that never finishes.
     */
    @Test
    void aDamagedRecordingEndsTheNodeWithTwelveEvenWhileStarting() {
        FatalErrors node = new FatalErrors(fatals, Path.of("/d/archive"));
        node.onError(new ArchiveException("CRC checksum mismatch at position=4416 (segmentFilePosition=0, ...):"
                + " recorded checksum=1, computed checksum=2, recordingId=0, replaySessionId=3, segmentFile=0-0.rec"));
        node.serving();
        node.onError(new IllegalStateException(
                "wrapped", new CorruptDataException(Path.of("/d/archive"), -1, "the state machine snapshot", "bad")));
        node.onError(new ArchiveException("unexpected end of recording at position=96"));
        assertThat(fatals.lines())
                .containsExactly(
                        "tenure: fatal: corrupt data file (exit 12): /d/archive: a replay failed: ERROR - CRC checksum"
                                + " mismatch at position=4416 (segmentFilePosition=0, ...): recorded checksum=1,"
                                + " computed checksum=2, recordingId=0, replaySessionId=3, segmentFile=0-0.rec; see"
                                + " docs/cluster.md#a-corrupt-or-unreadable-data-file",
                        "tenure: fatal: corrupt data file (exit 12): /d/archive (the state machine snapshot): bad",
                        "tenure: fatal: corrupt data file (exit 12): /d/archive: a replay failed: ERROR - unexpected end"
                                + " of recording at position=96; see docs/cluster.md#a-corrupt-or-unreadable-data-file");
    }

    @Test
    void otherArchiveErrorsAreLogged() {
        fatalErrors.serving();
        fatalErrors.onError(new ArchiveException("replay not found"));
        assertThat(fatals.lines()).isEmpty();
    }

    private static void run(String name, Runnable body) throws InterruptedException {
        Thread t = new Thread(body, name);
        t.setUncaughtExceptionHandler((thread, error) -> {}); // what it threw is in the fatal line
        t.start();
        t.join();
    }
}
