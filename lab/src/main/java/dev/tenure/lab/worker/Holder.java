package dev.tenure.lab.worker;

/** One worker's grip on the lock, naive or Tenure, as the worker loop sees it. */
interface Holder extends AutoCloseable {
    /**
     * Acquires, reporting each attempt as an operation; returns the token (the naive lock's
     * generation), or 0 if no attempt succeeded before the deadline.
     */
    long acquire() throws InterruptedException;

    /**
     * Right before a write: the token to write with, or 0 if the holder must stop (it knows it
     * lost the lock).
     */
    long check() throws InterruptedException;

    /** Releases, reporting it as an operation. */
    void release() throws InterruptedException;

    @Override
    void close();
}
