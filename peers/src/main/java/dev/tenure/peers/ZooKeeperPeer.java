package dev.tenure.peers;

import com.google.common.base.Joiner;
import com.google.common.net.HostAndPort;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * ZooKeeper through Curator. A client is one {@link CuratorFramework} (one ZooKeeper handle: its
 * own connection and session, kept alive by the handle's pings, with the session timeout as its
 * TTL). A cycle is Curator's {@link InterProcessMutex}, the lock recipe ZooKeeper's users take:
 * {@code acquire} creates an ephemeral sequential node under the lock's path and lists the
 * children to find that it is the first, {@code release} deletes the node. Two writes through the
 * leader's log, each fsynced ({@code forceSync=yes}), as Tenure's acquire and release are.
 */
final class ZooKeeperPeer implements Peer {

    private static final String ROOT = "/tenure-peers/";
    private static final int RETRY_BASE_MILLIS = 100;
    private static final int RETRIES_MAX = 3;

    private final String connectString;
    private final int sessionTimeoutMillis;

    ZooKeeperPeer(List<HostAndPort> endpoints, Duration ttl) {
        this.connectString = Joiner.on(',').join(endpoints);
        this.sessionTimeoutMillis = Math.toIntExact(ttl.toMillis());
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String cycle() {
        return "acquire+release";
    }

    @Override
    public Peer.Connection open(String lock) throws Exception {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMillis)
                .connectionTimeoutMs(Math.toIntExact(REQUEST_TIMEOUT.toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(RETRY_BASE_MILLIS, RETRIES_MAX))
                .build();
        AtomicBoolean lost = new AtomicBoolean();
        curator.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                lost.set(true);
            }
        });
        try {
            curator.start();
            if (!curator.blockUntilConnected(Math.toIntExact(REQUEST_TIMEOUT.toMillis()), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "no ZooKeeper session on " + connectString + " within " + REQUEST_TIMEOUT);
            }
            return new ZooKeeperClient(curator, new InterProcessMutex(curator, ROOT + lock), lost);
        } catch (Exception | Error e) {
            curator.close();
            throw e;
        }
    }

    private record ZooKeeperClient(CuratorFramework curator, InterProcessMutex mutex, AtomicBoolean lost)
            implements Peer.Connection {

        @Override
        public void cycle() throws Exception {
            if (!mutex.acquire(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("lock not acquired within " + REQUEST_TIMEOUT);
            }
            mutex.release();
        }

        @Override
        public boolean sessionLost() {
            return lost.get();
        }

        /** Closing the handle ends its session: the server deletes its ephemeral nodes. */
        @Override
        public void close() {
            curator.close();
        }
    }
}
