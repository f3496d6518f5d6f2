package dev.tenure.client;

/** Shields the client's state machine from a listener that throws. */
final class SafeListener implements TenureListener {
    private static final System.Logger LOG = System.getLogger(SafeListener.class.getName());

    private final TenureListener delegate;

    SafeListener(TenureListener delegate) {
        this.delegate = delegate;
    }

    private void call(String event, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "TenureListener." + event + " threw", e);
        }
    }

    @Override
    public void sessionStateChanged(Session session, Session.State from, Session.State to) {
        call("sessionStateChanged", () -> delegate.sessionStateChanged(session, from, to));
    }

    @Override
    public void acquireStart(String lock) {
        call("acquireStart", () -> delegate.acquireStart(lock));
    }

    @Override
    public void acquireEnd(Lease lease) {
        call("acquireEnd", () -> delegate.acquireEnd(lease));
    }

    @Override
    public void acquireFailed(String lock, TenureException failure) {
        call("acquireFailed", () -> delegate.acquireFailed(lock, failure));
    }

    @Override
    public void renewFailed(Session session, Throwable cause) {
        call("renewFailed", () -> delegate.renewFailed(session, cause));
    }

    @Override
    public void leaseLost(Lease lease, LossReason reason) {
        call("leaseLost", () -> delegate.leaseLost(lease, reason));
    }

    @Override
    public void connectionReplaced(String endpoint, String why) {
        call("connectionReplaced", () -> delegate.connectionReplaced(endpoint, why));
    }
}
