package dev.tenure.core;

/**
 * What the request cache remembers for one request id: a settled {@link Result}, or the lock an
 * acquire is still queued for. A queued acquire has no final result yet; a retry of it reports
 * the queue position as it is now (the holder may have changed), so only the lock is kept.
 */
record Outcome(Result result, String waitingLock) {

    static Outcome settled(Result result) {
        return new Outcome(result, null);
    }

    static Outcome waiting(String lock) {
        return new Outcome(null, lock);
    }

    boolean pending() {
        return waitingLock != null;
    }
}
