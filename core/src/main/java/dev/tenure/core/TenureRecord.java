package dev.tenure.core;

/** One past tenure of a lock, kept in its bounded ownership history. */
public record TenureRecord(long sessionId, long token, long grantedAtMs, long endedAtMs, TenureEnd end) {}
