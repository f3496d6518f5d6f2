package dev.tenure.server.guard;

/**
 * What one record of each kind costs, in the heap and in a snapshot image, without the names and
 * bytes it carries (those are added from the limits that bound them). Measured, not guessed:
 * {@code MemoryCostsTest} fills a state machine with many records of each kind at their largest
 * shape and fails if a record costs more than its figure here; it prints what it measured
 * (docs/memory.md has the figures). The gateway's share of a session comes from {@code tenure
 * bench hold}, whose server heap per session-with-lock includes it.
 */
final class EntryCosts {
    private EntryCosts() {}

    /** A live session in the core: its record, its request cache's maps, its deadline. */
    static final long SESSION = 384;
    /**
     * What the gateway keeps per session: its stream, its sub-stream of an AttachMany call, its
     * registry entry. {@code tenure bench hold} measured 920 B per session-with-lock for the whole
     * node, of which the core's session and lock are 619 B.
     */
    static final long GATEWAY_SESSION = 384;
    /**
     * An interned name (a session's client name or principal), besides its bytes: the string, its
     * array and the JVM's string table entry. Interned names are shared by every record that names
     * them, so they are counted once per session.
     */
    static final long INTERNED_NAME = 144;
    /** A string of the record's own (a lock name, a key, a stale write's target), besides its bytes. */
    static final long STRING = 48;
    /** One cached outcome of a request, with its message of at most 32 characters. */
    static final long CACHED_OUTCOME = 240;
    /** A lock record and its place in the lock table and the idle order, without its name or history. */
    static final long LOCK = 320;
    /** What holding a lock adds: the lease, its deadlines, its session's index entry. */
    static final long LEASE = 192;
    /** One past tenure in a lock's history; the names in it are shared with sessions. */
    static final long TENURE_RECORD = 88;
    /** A checkpoint's record and array, besides its bytes. */
    static final long CHECKPOINT = 48;
    /** A queued acquire: its waiter, its session's two index entries, its pending outcome, its deadline. */
    static final long WAITER = 352;
    /** A KV entry and its map entries, without its key, value and lock name bytes. */
    static final long KV_ENTRY = 128;
    /** An ephemeral key's entry in its session's index (the key's string is the entry's own). */
    static final long EPHEMERAL_KEY = 48;
    /** A session's index of its ephemeral keys, while it holds at least one: map entry, id, set. */
    static final long EPHEMERAL_SESSION = 144;

    // In a snapshot image (the format is in SnapshotCodec): fixed fields, without the names.
    static final long SESSION_SNAPSHOT = 96;
    static final long CACHED_OUTCOME_SNAPSHOT = 30;
    static final long LOCK_SNAPSHOT = 120;
    static final long LEASE_SNAPSHOT = 90;
    static final long TENURE_RECORD_SNAPSHOT = 60;
    static final long WAITER_SNAPSHOT = 80;
    // With version 8's version and ephemeral owner; an ephemeral key's image measured 64 B besides its key.
    static final long KV_ENTRY_SNAPSHOT = 64;
    static final long CHECKPOINT_SNAPSHOT = 25;

    /** An idle node: gRPC, Netty, the Aeron clients, the metrics registry (measured: 9.8 MB live). */
    static final long BASELINE = 16L << 20;
    /**
     * Requests a node holds at once between their arrival and their answer, each with its value:
     * assumed, not enforced. The gateway does not bound them yet (connection limits and flow
     * control do not exist yet); until it does, the estimate counts this many.
     */
    static final int CALLS_IN_FLIGHT = 256;
    /** One in-flight call besides its value: its request, its log command, its future. */
    static final long CALL = 1024;
    /** One stale-write series of the metrics, with the longest lock name and target, and its scrape text. */
    static final long METRICS_SERIES = 10240;
}
