package dev.tenure.client;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records listener events as short strings, in order. */
final class RecordingListener implements TenureListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void sessionStateChanged(Session session, Session.State from, Session.State to) {
        events.add("state " + from + "->" + to);
    }

    @Override
    public void acquireStart(String lock) {
        events.add("acquireStart " + lock);
    }

    @Override
    public void acquireEnd(Lease lease) {
        events.add("acquireEnd " + lease.lock() + " " + lease.token());
    }

    @Override
    public void acquireFailed(String lock, TenureException failure) {
        events.add("acquireFailed " + lock + " " + failure.code());
    }

    @Override
    public void renewFailed(Session session, Throwable cause) {
        events.add("renewFailed " + cause.getClass().getSimpleName());
    }

    @Override
    public void leaseLost(Lease lease, LossReason reason) {
        events.add("leaseLost " + lease.lock() + " " + reason);
    }

    List<String> matching(String prefix) {
        return events.stream().filter(e -> e.startsWith(prefix)).toList();
    }
}
