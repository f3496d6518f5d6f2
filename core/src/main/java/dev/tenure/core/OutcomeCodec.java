package dev.tenure.core;

import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Rejected;

/**
 * Encoding of request-cache outcomes. Only these six shapes are ever cached. A grant is written
 * as its token ({@link #GRANT_TOKEN}); snapshots of versions 4 and 5 wrote the whole grant
 * ({@link #GRANTED}), which is read as its token.
 */
final class OutcomeCodec {
    private static final int WAITING = 0;
    private static final int GRANTED = 1;
    private static final int OK = 2;
    private static final int REJECTED = 3;
    private static final int RENEWED = 4;
    private static final int GRANT_TOKEN = 5;
    /** A KV put or delete carried out, with the version it reported (snapshot version 8 on). */
    private static final int WRITTEN = 6;

    private OutcomeCodec() {}

    /** Version 7 has no WRITTEN tag: a KV write is written as OK there, as its build remembered it. */
    static void write(SnapshotWriter w, Outcome o, int version) {
        if (o.pending()) {
            w.u8(WAITING);
            w.string(o.waitingLock());
        } else if (o.granted()) {
            w.u8(GRANT_TOKEN);
            w.i64(o.grantedToken());
        } else if (o.result() instanceof Result.LeaseRenewed x) {
            w.u8(RENEWED);
            w.i64(x.remainingMs());
        } else if (o.result() instanceof Result.Written x && version >= 8) {
            w.u8(WRITTEN);
            w.i64(x.version());
        } else if (o.result() instanceof Ok || o.result() instanceof Result.Written) {
            w.u8(OK);
        } else if (o.result() instanceof Rejected x) {
            w.u8(REJECTED);
            w.u8(SnapshotCodec.index(SnapshotCodec.CODES, x.code()));
            w.string(x.message());
            w.i64(x.currentToken());
        } else {
            throw new IllegalStateException("uncacheable outcome " + o);
        }
    }

    static Outcome read(SnapshotReader r) {
        int tag = r.u8();
        switch (tag) {
            case WAITING -> {
                return Outcome.waiting(r.nonNullString());
            }
            case GRANTED -> {
                return Outcome.settled(new Granted(new Grant(
                        r.nonNullString(),
                        r.i64(),
                        r.i64(),
                        r.i64(),
                        r.i64(),
                        SnapshotCodec.end(r),
                        r.i64(),
                        SnapshotCodec.readCheckpoint(r),
                        SnapshotCodec.readPolicy(r))));
            }
            case GRANT_TOKEN -> {
                long token = r.i64();
                if (token <= 0) {
                    throw SnapshotCodec.corrupt("granted token " + token);
                }
                return new Outcome(null, null, token);
            }
            case OK -> {
                return Outcome.settled(new Ok());
            }
            case WRITTEN -> {
                return Outcome.settled(new Result.Written(r.i64()));
            }
            case RENEWED -> {
                return Outcome.settled(new Result.LeaseRenewed(r.i64()));
            }
            case REJECTED -> {
                return Outcome.settled(
                        new Rejected(SnapshotCodec.at(SnapshotCodec.CODES, r.u8()), r.nonNullString(), r.i64()));
            }
            default -> throw SnapshotCodec.corrupt("outcome tag " + tag);
        }
    }
}
