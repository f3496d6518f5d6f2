package dev.tenure.peers;

import com.google.common.net.HostAndPort;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * etcd through jetcd. A client is one {@link Client} (its own gRPC connection) with one lease,
 * granted when the client opens and kept alive by jetcd's keepalive stream until it closes: the
 * client's session, as a Tenure session is. A cycle is etcd's own lock service (v3lock, what
 * {@code etcdctl lock} uses): {@code Lock} puts the key {@code lock/<lease>} under the lease and
 * waits until no key of the lock is older, {@code Unlock} deletes it. Two writes through the Raft
 * log, each fsynced, as Tenure's acquire and release are.
 */
final class EtcdPeer implements Peer {

    private final String[] endpoints;
    private final long ttlSeconds;

    EtcdPeer(List<HostAndPort> endpoints, Duration ttl) {
        this.endpoints = endpoints.stream().map(e -> "http://" + e).toArray(String[]::new);
        this.ttlSeconds = ttl.toSeconds();
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String cycle() {
        return "lock+unlock";
    }

    @Override
    public Peer.Connection open(String lock) throws Exception {
        Client client = Client.builder().endpoints(endpoints).build();
        try {
            long lease = client.getLeaseClient()
                    .grant(ttlSeconds)
                    .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .getID();
            AtomicBoolean lost = new AtomicBoolean();
            CloseableClient keepAlive = client.getLeaseClient().keepAlive(lease, new StreamObserver<>() {
                @Override
                public void onNext(LeaseKeepAliveResponse response) {
                    // A TTL of zero or less is etcd saying that the lease is gone.
                    if (response.getTTL() <= 0) {
                        lost.set(true);
                    }
                }

                @Override
                public void onError(Throwable t) {
                    lost.set(true);
                }

                @Override
                public void onCompleted() {}
            });
            return new EtcdClient(client, lease, keepAlive, lost, ByteSequence.from(lock, StandardCharsets.UTF_8));
        } catch (Exception | Error e) {
            client.close();
            throw e;
        }
    }

    private record EtcdClient(
            Client client, long lease, CloseableClient keepAlive, AtomicBoolean lost, ByteSequence name)
            implements Peer.Connection {

        @Override
        public void cycle() throws Exception {
            LockResponse held =
                    client.getLockClient().lock(name, lease).get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            client.getLockClient().unlock(held.getKey()).get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public boolean sessionLost() {
            return lost.get();
        }

        @Override
        public void close() {
            keepAlive.close();
            try {
                // Ends the session now, as a Tenure client's close does, rather than at its TTL.
                client.getLeaseClient().revoke(lease).get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                // The lease expires at its TTL instead: nothing measured depends on it.
            } finally {
                client.close();
            }
        }
    }
}
