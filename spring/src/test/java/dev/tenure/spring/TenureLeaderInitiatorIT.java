package dev.tenure.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.TenureClient;
import dev.tenure.client.spi.Transport;
import dev.tenure.process.RealNode;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;

/**
 * {@link TenureLeaderInitiator}s on a real node, each on a client of its own (as two instances of
 * an application): one leader per role; a stop or a yield hands over at once; a leader whose
 * connection breaks is revoked before the next one is granted, with a higher token.
 */
class TenureLeaderInitiatorIT {

    private static final Await WITHIN = Await.atMost(Duration.ofSeconds(20)).every(Duration.ofMillis(5));
    /** Long, so that a hand-over well under it came from a resignation, not from a broken connection. */
    private static final Duration GRACE = Duration.ofSeconds(3);

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    /** What happened, in order, with when (nanoTime) and the leadership's token. */
    record Event(String what, String id, long token, long atNanos) {}

    private final List<Event> log = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final List<TenureLeaderInitiator> initiators = new ArrayList<>();
    private String role;

    @BeforeEach
    void name(TestInfo test) {
        role = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void stopAll() throws Exception {
        initiators.forEach(TenureLeaderInitiator::stop);
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    /** A candidate that records its callbacks, and a publisher that records the events. */
    private final class Recording implements Candidate, LeaderEventPublisher {
        private final String id;

        Recording(String id) {
            this.id = id;
        }

        @Override
        public String getRole() {
            return role;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public void onGranted(Context ctx) {
            log.add(new Event("granted", id, ((TenureLeaderContext) ctx).token(), System.nanoTime()));
        }

        @Override
        public void onRevoked(Context ctx) {
            log.add(new Event("revoked", id, ((TenureLeaderContext) ctx).token(), System.nanoTime()));
        }

        @Override
        public void publishOnGranted(Object source, Context context, String role) {
            log.add(new Event(
                    "OnGrantedEvent:" + role, id, ((TenureLeaderContext) context).token(), System.nanoTime()));
        }

        @Override
        public void publishOnRevoked(Object source, Context context, String role) {
            log.add(new Event(
                    "OnRevokedEvent:" + role, id, ((TenureLeaderContext) context).token(), System.nanoTime()));
        }

        @Override
        public void publishOnFailedToAcquire(Object source, Context context, String role) {
            log.add(new Event("failed", id, 0, System.nanoTime()));
        }
    }

    private TenureLeaderInitiator initiator(TenureClient client, String id) {
        Recording recording = new Recording(id);
        TenureLeaderInitiator initiator = new TenureLeaderInitiator(client, recording);
        initiator.setLeaderEventPublisher(recording);
        initiator.setRetryDelay(Duration.ofMillis(50), Duration.ofMillis(500));
        initiators.add(initiator);
        return initiator;
    }

    private TenureClient client(TenureClient.Builder builder) {
        TenureClient client =
                builder.endpoints(NODE.endpoint()).disconnectGrace(GRACE).build();
        closing.add(client);
        return client;
    }

    private TenureClient client() {
        return client(TenureClient.builder());
    }

    private Event first(String what, String id) {
        return log.stream()
                .filter(e -> e.what().equals(what) && e.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + what + " of " + id + " in " + log));
    }

    /** Both started, first leads, and for half a second second never does. */
    private void firstLeadsAndSecondWaits(TenureLeaderInitiator first, TenureLeaderInitiator second)
            throws InterruptedException {
        first.start();
        WITHIN.until("first leads", () -> first.getContext().isLeader());
        second.start();
        for (int i = 0; i < 10; i++) {
            assertThat(second.getContext().isLeader()).isFalse();
            assertThat(first.getContext().isLeader()).isTrue();
            Pause.forMillis(50);
        }
    }

    @Test
    void oneLeaderAndStoppingItGrantsTheOtherAtOnce() throws Exception {
        TenureLeaderInitiator first = initiator(client(), "first");
        TenureLeaderInitiator second = initiator(client(), "second");
        firstLeadsAndSecondWaits(first, second);
        long firstToken = first.getContext().token();
        long stoppedAt = System.nanoTime();
        first.stop();
        WITHIN.until("second leads", () -> second.getContext().isLeader());
        Duration handOver = Duration.ofNanos(System.nanoTime() - stoppedAt);
        System.out.printf(
                "leader hand-over on stop(): %d ms (disconnect grace %d ms)%n", handOver.toMillis(), GRACE.toMillis());
        assertThat(handOver).isLessThan(GRACE.dividedBy(3));
        assertThat(first.getContext().isLeader()).isFalse();
        assertThat(second.getContext().token()).isGreaterThan(firstToken);
        assertThat(log)
                .extracting(Event::what, Event::id)
                .startsWith(
                        org.assertj.core.groups.Tuple.tuple("granted", "first"),
                        org.assertj.core.groups.Tuple.tuple("OnGrantedEvent:" + role, "first"),
                        org.assertj.core.groups.Tuple.tuple("revoked", "first"),
                        org.assertj.core.groups.Tuple.tuple("OnRevokedEvent:" + role, "first"));
        WITHIN.until("second's OnGrantedEvent", () -> log.size() == 6);
        assertThat(log.get(4)).extracting(Event::what, Event::id).containsExactly("granted", "second");
        assertThat(log.get(5).what()).isEqualTo("OnGrantedEvent:" + role);
    }

    @Test
    void aLeaderWhoseConnectionBreaksIsRevokedBeforeTheNextIsGranted() throws Exception {
        List<ManagedChannel> channels = new CopyOnWriteArrayList<>();
        TenureClient breaking = client(Transport.channelFactory(TenureClient.builder(), endpoint -> {
            ManagedChannel channel = Transport.configure(NettyChannelBuilder.forTarget(endpoint), null)
                    .build();
            channels.add(channel);
            return channel;
        }));
        TenureLeaderInitiator first = initiator(breaking, "first");
        TenureLeaderInitiator second = initiator(client(), "second");
        firstLeadsAndSecondWaits(first, second);
        long cutAt = System.nanoTime();
        channels.forEach(ManagedChannel::shutdownNow); // the leader's connection closes under it
        WITHIN.until("second leads", () -> second.getContext().isLeader());
        Event revoked = first("revoked", "first");
        Event granted = first("granted", "second");
        System.out.printf(
                "broken leader connection: revoked after %d ms, next granted after %d ms (%d ms later; grace %d ms)%n",
                (revoked.atNanos() - cutAt) / 1_000_000,
                (granted.atNanos() - cutAt) / 1_000_000,
                (granted.atNanos() - revoked.atNanos()) / 1_000_000,
                GRACE.toMillis());
        assertThat(revoked.atNanos()).isLessThan(granted.atNanos());
        assertThat(granted.token()).isGreaterThan(revoked.token());
        assertThat(first("granted", "first").token()).isEqualTo(revoked.token());
    }

    @Test
    void yieldHandsOverAndTheYielderCampaignsAgain() throws Exception {
        TenureLeaderInitiator first = initiator(client(), "first");
        TenureLeaderInitiator second = initiator(client(), "second");
        firstLeadsAndSecondWaits(first, second);
        TenureLeaderContext firstLeadership = first.getContext();
        firstLeadership.yieldLeadership();
        WITHIN.until("second leads", () -> second.getContext().isLeader());
        assertThat(firstLeadership.isLeader()).isFalse();
        assertThat(first("revoked", "first").atNanos())
                .isLessThan(first("granted", "second").atNanos());
        long secondToken = second.getContext().token();
        assertThat(secondToken).isGreaterThan(firstLeadership.token());
        second.getContext().yield(); // first queued again behind second: elected now
        WITHIN.until("first leads again", () -> first.getContext().isLeader());
        assertThat(first.getContext().token()).isGreaterThan(secondToken);
        assertThat(second.getContext().isLeader()).isFalse();
    }

    @Test
    void theAutoConfigurationElectsForTheRoleProperty() {
        List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .withPropertyValues(
                        "tenure.endpoints=" + NODE.endpoint(), "tenure.leader.role=" + role, "tenure.leader.id=one")
                .withBean(ApplicationListener.class, () -> (ApplicationListener<OnGrantedEvent>) events::add)
                .run(context -> {
                    TenureLeaderInitiator initiator = context.getBean(TenureLeaderInitiator.class);
                    WITHIN.until("it leads", () -> initiator.getContext().isLeader());
                    WITHIN.until("the OnGrantedEvent arrived", () -> !events.isEmpty());
                    assertThat(events.get(0).getRole()).isEqualTo(role);
                    assertThat(((TenureLeaderContext) events.get(0).getContext()).token())
                            .isEqualTo(initiator.getContext().token());
                });
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .withPropertyValues("tenure.endpoints=" + NODE.endpoint())
                .run(context -> assertThat(context).doesNotHaveBean(TenureLeaderInitiator.class));
    }
}
