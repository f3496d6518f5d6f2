package dev.tenure.server.cluster;

import dev.tenure.server.runtime.AgentWakeup;
import dev.tenure.server.runtime.InvokingIdleStrategy;
import io.aeron.Aeron;
import io.aeron.AeronCounters;
import io.aeron.Counter;
import io.aeron.RethrowingErrorHandler;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.service.ClusterCounters;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpLock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;
import org.jspecify.annotations.Nullable;

/**
 * A member's media driver, archive and consensus module, run as one agent on one thread.
 *
 * <p>Why one thread: every entry crosses these three on each member (the leader's consensus
 * module appends it, its driver sends it, a follower's driver receives it, its archive records
 * and syncs it, its consensus module reports the position back). With one thread each, every
 * crossing is a park and a wake-up of another thread; on the two-core virtual machines Tenure is
 * measured on, a context switch is the single largest cost of a request (see BENCHMARKS.md, 'What
 * bounds three nodes, and one thread for the log'). On one thread a crossing is a method call in
 * the same duty cycle. Aeron supports this: the driver and archive in
 * {@code INVOKER} mode, the consensus module with {@code useAgentInvoker}, each driven by the
 * next. The clustered service keeps its own thread (Aeron gives it no invoker), so a slow apply
 * never stalls replication.
 *
 * <p>The archive's duty cycle also runs the driver's; the consensus module's waits inside its own
 * work (start-up recovery, back pressure, archive requests) run the archive ({@link
 * InvokingIdleStrategy}), so nothing it waits for stands still.
 */
public final class ConsensusHost implements AutoCloseable {

    private final MediaDriver driver;
    private final Duty duty;
    private final AgentRunner runner;

    private ConsensusHost(MediaDriver driver, Duty duty, AgentRunner runner) {
        this.driver = driver;
        this.duty = duty;
        this.runner = runner;
    }

    /**
     * Starts the driver and archive here, then the thread, which starts the consensus module:
     * its start-up waits for the clustered service to connect, so the caller launches the
     * service next and then calls {@link #awaitStarted()}. The thread's idle strategy is made
     * from the launched driver ({@code idle}): a cluster member's rests in its socket selector.
     * The thread comes from {@code threads}, so the caller can tell when it ends.
     */
    public static ConsensusHost launch(
            MediaDriver.Context driverCtx,
            Archive.Context archiveCtx,
            ConsensusModule.Context consensusCtx,
            Function<MediaDriver, IdleStrategy> idle,
            @Nullable AgentWakeup wakeup,
            ErrorHandler errors,
            ThreadFactory threads) {
        MediaDriver driver = null;
        Archive archive = null;
        Aeron aeron = null;
        try {
            driver = MediaDriver.launch(driverCtx.threadingMode(ThreadingMode.INVOKER));
            aeron = Aeron.connect(new Aeron.Context()
                    .aeronDirectoryName(driver.aeronDirectoryName())
                    .epochClock(consensusCtx.epochClock())
                    .errorHandler(errors)
                    .subscriberErrorHandler(RethrowingErrorHandler.INSTANCE)
                    .useConductorAgentInvoker(true)
                    .driverAgentInvoker(driver.sharedAgentInvoker())
                    .awaitingIdleStrategy(YieldingIdleStrategy.INSTANCE)
                    .clientLock(NoOpLock.INSTANCE)
                    .clientName("consensus-module-" + consensusCtx.clusterMemberId()));
            // The archive shares the consensus module's client (both run on this thread): a
            // client maps every log buffer it uses, and the process's resident set counts each
            // mapping, so the log's terms, which the archive records and the consensus module
            // appends, are mapped once for both instead of twice (docs/memory.md).
            archive = Archive.launch(archiveCtx
                    .threadingMode(ArchiveThreadingMode.INVOKER)
                    .mediaDriverAgentInvoker(driver.sharedAgentInvoker())
                    .aeron(aeron)
                    .ownsAeronClient(false)
                    .errorCounter(archiveErrorCounter(aeron, archiveCtx.archiveId())));
            AgentInvoker archiveInvoker = archive.invoker();
            AtomicCounter errorCounter = ClusterCounters.allocate(
                    aeron,
                    new ExpandableArrayBuffer(),
                    "Cluster Errors",
                    AeronCounters.CLUSTER_CONSENSUS_MODULE_ERROR_COUNT_TYPE_ID,
                    consensusCtx.clusterId());
            consensusCtx.archiveContext().agentInvoker(archiveInvoker);
            consensusCtx
                    .aeron(aeron)
                    .errorCounter(errorCounter)
                    .useAgentInvoker(true)
                    // Only the consensus module's own waits use this: they run the archive
                    // (and through it the driver) instead of sleeping on work nobody else does.
                    .idleStrategySupplier(() -> new InvokingIdleStrategy(archiveInvoker));
            Duty duty = new Duty(driver, archive, aeron, consensusCtx, wakeup);
            AgentRunner runner = new AgentRunner(idle.apply(driver), errors, null, duty);
            AgentRunner.startOnThread(runner, threads);
            return new ConsensusHost(driver, duty, runner);
        } catch (RuntimeException e) {
            CloseHelper.quietCloseAll(archive, aeron, driver);
            throw e;
        }
    }

    /**
     * The counter of the archive's errors, keyed by its id as the archive keys the one it makes
     * when it has a client of its own (Aeron's tools find it so).
     */
    private static Counter archiveErrorCounter(Aeron aeron, long archiveId) {
        UnsafeBuffer key = new UnsafeBuffer(new byte[Long.BYTES]);
        key.putLong(0, archiveId);
        byte[] label = ("Archive Errors - archiveId=" + archiveId).getBytes(StandardCharsets.US_ASCII);
        return aeron.addCounter(
                AeronCounters.ARCHIVE_ERROR_COUNT_TYPE_ID,
                key,
                0,
                key.capacity(),
                new UnsafeBuffer(label),
                0,
                label.length);
    }

    /** Waits until the consensus module has started (recovered its state); throws if it failed. */
    public ConsensusModule awaitStarted() {
        try {
            return duty.started.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    MediaDriver mediaDriver() {
        return driver;
    }

    ConsensusModule consensusModule() {
        return duty.started.getNow(null);
    }

    /**
     * Stops the thread, which closes every part on its way out: the archive accepts requests only
     * on the thread that runs it, and the consensus module's close stops its log recording.
     */
    @Override
    public void close() {
        runner.close();
    }

    private static final class Duty implements Agent {
        private final MediaDriver driver;
        private final Archive archive;
        private final Aeron consensusAeron;
        private final ConsensusModule.Context consensusCtx;
        private final CompletableFuture<ConsensusModule> started = new CompletableFuture<>();
        private final @Nullable AgentWakeup wakeup; // null: nobody to tell of commits
        // The three below are set by onStart, which the agent runner calls before any doWork.
        @SuppressWarnings("NullAway.Init")
        private AgentInvoker archiveInvoker;

        @SuppressWarnings("NullAway.Init")
        private AgentInvoker consensus;

        @SuppressWarnings("NullAway.Init")
        private Counter commitPosition;

        private long lastCommitPosition;

        Duty(
                MediaDriver driver,
                Archive archive,
                Aeron consensusAeron,
                ConsensusModule.Context consensusCtx,
                @Nullable AgentWakeup wakeup) {
            this.wakeup = wakeup;
            this.driver = driver;
            this.archive = archive;
            this.consensusAeron = consensusAeron;
            this.consensusCtx = consensusCtx;
        }

        @Override
        public void onStart() {
            try {
                archiveInvoker = archive.invoker();
                ConsensusModule module = ConsensusModule.launch(consensusCtx);
                consensus = module.conductorAgentInvoker();
                commitPosition = consensusCtx.commitPositionCounter();
                started.complete(module);
            } catch (Throwable t) {
                // Whatever stopped the start, the caller waiting in awaitStarted must hear of it.
                started.completeExceptionally(t);
                throw t;
            }
        }

        @Override
        public int doWork() {
            int work = archiveInvoker.invoke() + consensus.invoke();
            if (archiveInvoker.isClosed() || consensus.isClosed()) {
                // An invoker closes its agent when the agent terminates (or its thread is
                // interrupted) and from then on does nothing, quietly: this thread would go on
                // running a member that can no longer commit anything. Only onClose, after this
                // loop, closes them when the host is closed.
                throw new AgentTerminationException(
                        (archiveInvoker.isClosed() ? "the archive" : "the consensus module") + " stopped");
            }
            if (work > 0 && wakeup != null) {
                // The service reads the log up to the commit position: when it moves, the
                // service has entries to apply, on a lone member as on a follower.
                long position = commitPosition.get();
                if (position != lastCommitPosition) {
                    lastCommitPosition = position;
                    wakeup.committed();
                }
            }
            return work;
        }

        @Override
        public void onClose() {
            // The archive before the client it shares: its close stops recordings through it.
            CloseHelper.closeAll(started.getNow(null), archive, consensusAeron, driver);
        }

        @Override
        public String roleName() {
            return "tenure-consensus";
        }
    }
}
