package dev.tenure.lab.history;

/** What an event is about. */
public enum Op {
    ACQUIRE,
    WRITE,
    RELEASE,
    RENEW,
    /** The lock client told the worker it lost the lease (Tenure), or the worker noticed (naive). */
    LOST,
    /** A fault the lab injected (kill, stop, proxy mode); process "lab". */
    FAULT,
    /** The lab undid a fault. */
    HEAL
}
