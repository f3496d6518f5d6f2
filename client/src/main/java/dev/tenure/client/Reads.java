package dev.tenure.client;

import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import java.time.Instant;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** Requests that need no session: they change nothing, so retrying them needs no request id. */
final class Reads {
    private Reads() {}

    static Optional<KvEntry> get(ClientContext ctx, String key) {
        KvGetResponse r = Blocking.join(ctx.retrier.call(
                TenureGrpc.getKvGetMethod(),
                KvGetRequest.newBuilder().setKey(key).build(),
                ctx.requestTimeoutNanos));
        return switch (r.getCode()) {
            case CODE_OK -> Optional.of(KvEntry.from(key, r));
            case CODE_NOT_FOUND -> Optional.empty();
            default -> throw Outcomes.unexpected("get '" + key + "'", r.getCode(), r.getMessage());
        };
    }

    static LockStatus status(ClientContext ctx, String lock) {
        LockStatusResponse r = Blocking.join(ctx.retrier.call(
                TenureGrpc.getLockStatusMethod(),
                LockStatusRequest.newBuilder().setLock(lock).build(),
                ctx.requestTimeoutNanos));
        return switch (r.getCode()) {
            case CODE_OK, CODE_UNSPECIFIED -> LockStatus.from(lock, r);
            // A lock nobody has touched (or whose history aged out) is simply free.
            case CODE_NOT_FOUND ->
                new LockStatus(
                        lock,
                        Optional.empty(),
                        List.of(),
                        List.of(),
                        Instant.ofEpochMilli(r.getNowMs()),
                        Optional.empty(),
                        Optional.empty(),
                        LockStatus.StaleWrites.NONE,
                        List.of(),
                        1);
            default -> throw Outcomes.unexpected("status '" + lock + "'", r.getCode(), r.getMessage());
        };
    }

    /** One page of the lock listing; {@code limit} 0 takes the node's default page size. */
    static ListedLock.Page listLocks(ClientContext ctx, String prefix, String after, int limit) {
        ListLocksResponse r = Blocking.join(ctx.retrier.call(
                TenureGrpc.getListLocksMethod(),
                ListLocksRequest.newBuilder()
                        .setPrefix(prefix)
                        .setAfter(after)
                        .setLimit(limit)
                        .build(),
                ctx.requestTimeoutNanos));
        return switch (r.getCode()) {
            case CODE_OK, CODE_UNSPECIFIED -> ListedLock.Page.from(r);
            default -> throw Outcomes.unexpected("list locks '" + prefix + "'", r.getCode(), r.getMessage());
        };
    }

    /**
     * Every lock under {@code prefix}, fetched a page at a time as the stream is consumed: each page
     * starts after the last name of the one before, so a lock that exists throughout is seen once.
     */
    static Stream<ListedLock> listAll(ClientContext ctx, String prefix, int pageSize) {
        Iterator<ListedLock> pages = new Iterator<>() {
            private Iterator<ListedLock> current = Collections.emptyIterator();
            private String after = "";
            private boolean more = true;

            @Override
            public boolean hasNext() {
                while (!current.hasNext() && more) {
                    ListedLock.Page page = listLocks(ctx, prefix, after, pageSize);
                    after = page.nextAfter(after);
                    more = page.more() && !page.locks().isEmpty();
                    current = page.locks().iterator();
                }
                return current.hasNext();
            }

            @Override
            public ListedLock next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return current.next();
            }
        };
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(
                        pages, Spliterator.ORDERED | Spliterator.DISTINCT | Spliterator.NONNULL),
                false);
    }

    static ServerStatus serverStatus(ClientContext ctx) {
        // A status is the answering node's own: it goes where the sessions are.
        return ServerStatus.from(Blocking.join(ctx.retrier.callPreferred(
                TenureGrpc.getServerStatusMethod(),
                ServerStatusRequest.newBuilder().setStateDigest(true).build(),
                ctx.requestTimeoutNanos)));
    }
}
