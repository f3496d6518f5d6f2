package dev.tenure.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.ListedLock;
import dev.tenure.core.Command;
import dev.tenure.core.Limits;
import dev.tenure.core.Result;
import dev.tenure.core.SecretHash;
import dev.tenure.core.StateMachine;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The lock listing through the gateway, applied by a real state machine: the page's bounds go
 * into the log entry, a page always fits its byte budget on the wire, and a listing needs read on
 * its whole prefix.
 */
class ListLocksTest {
    private final StateMachine machine = new StateMachine(Limits.defaults());
    private final List<LogCommand> logged = new ArrayList<>();
    private long now = 1_000;

    /** A log that applies each command at once, as a one-node cluster would. */
    private final LogPort log = new LogPort() {
        @Override
        public CompletableFuture<Reply> submit(LogCommand.Builder command) {
            LogCommand c = command.build();
            logged.add(c);
            return CompletableFuture.completedFuture(
                    WireMapping.toReply(c, machine.apply(now++, WireMapping.toCommand(c))));
        }

        @Override
        public CompletableFuture<Boolean> renewSession(long sessionId) {
            return CompletableFuture.completedFuture(true);
        }
    };

    private final Scheduler scheduler = new Scheduler() {
        @Override
        public void later(long delayMs, Runnable action) {}

        @Override
        public void soon(Runnable action) {
            action.run();
        }
    };

    private final Gateway gateway = new Gateway(log, scheduler, Limits.defaults(), new Gateway.Listener() {});

    /** Sessions whose client names and principals are as long as the limits allow, holding {@code count} locks. */
    private void holdLongNamedLocks(int count) {
        String client = "c".repeat(Limits.defaults().clientNameBytesMax());
        long session = 0;
        for (int i = 0; i < count; i++) {
            if (i % Limits.defaults().leasesPerSessionMax() == 0) {
                Result opened =
                        machine.apply(now++, new Command.OpenSession(60_000, client, SecretHash.NONE, "p".repeat(64)));
                session = ((Result.SessionOpened) opened).sessionId();
            }
            String name = String.format("%0" + Limits.defaults().lockNameBytesMax() + "d", i);
            Result r = machine.apply(now++, new Command.Acquire(session, i + 1, name, 0));
            assertThat(r).isInstanceOf(Result.Granted.class);
        }
    }

    private Answered<ListLocksResponse> list(ListLocksRequest request) {
        Answered<ListLocksResponse> a = new Answered<>();
        gateway.listLocks(request, a);
        return a;
    }

    @Test
    void aPageIsBoundedOnTheWireByItsByteBudgetAndPagesCoverEveryLockOnce() {
        holdLongNamedLocks(2_500);
        gateway.listPaging(new ListPaging(1_000, 1_000, 64 * 1024));
        List<String> seen = new ArrayList<>();
        String after = "";
        int pages = 0;
        while (true) {
            ListLocksResponse page =
                    list(ListLocksRequest.newBuilder().setAfter(after).build()).response;
            assertThat(page.getCode()).isEqualTo(Code.CODE_OK);
            assertThat(page.getSerializedSize())
                    .as("page %d on the wire", pages)
                    .isLessThanOrEqualTo(64 * 1024);
            page.getLocksList().stream().map(ListedLock::getLock).forEach(seen::add);
            pages++;
            if (!page.getMore()) {
                break;
            }
            after = seen.get(seen.size() - 1);
        }
        assertThat(seen).hasSize(2_500).doesNotHaveDuplicates().isSorted();
        // 256-byte names, 128-byte client names, 64-byte principals: 608 bytes counted per lock,
        // and its lease again among its holders, 100 + 128 + 64: 900, so 72 locks per 64 KiB page.
        assertThat(pages).isEqualTo(35);
        assertThat(logged.get(0).getListLocks().getBytesMax()).isEqualTo(64 * 1024);
    }

    @Test
    void theNodesDefaultPageSizeGoesIntoTheLogAndALargerLimitIsRefusedBeforeIt() {
        list(ListLocksRequest.getDefaultInstance());
        assertThat(logged.get(0).getListLocks().getRequest().getLimit()).isEqualTo(500);
        assertThat(logged.get(0).getListLocks().getBytesMax()).isEqualTo(256 * 1024);
        Answered<ListLocksResponse> tooMany =
                list(ListLocksRequest.newBuilder().setLimit(1_001).build());
        assertThat(tooMany.failure.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(tooMany.failure.getStatus().getDescription()).isEqualTo("limit is 1001; listPageMax allows 1..1000");
        Answered<ListLocksResponse> longPrefix =
                list(ListLocksRequest.newBuilder().setPrefix("x".repeat(257)).build());
        assertThat(longPrefix.failure.getStatus().getDescription())
                .isEqualTo("prefix is 257 bytes; lockNameBytesMax is 256");
        assertThat(logged).hasSize(1);
    }

    @Test
    void listingAPrefixNeedsReadOnEveryNameItCovers() {
        gateway.acl(Acl.of(Map.of(
                "auditor", List.of(new Acl.Grant("orders/", Set.of(Permission.READ))),
                "writer", List.of(new Acl.Grant("", EnumSet.of(Permission.WRITE, Permission.ACQUIRE))))));
        List<StatusRuntimeException> refusals = new ArrayList<>();
        Principal.bind(Context.current(), "auditor").run(() -> {
            assertThat(list(ListLocksRequest.newBuilder().setPrefix("orders/").build()).failure)
                    .isNull();
            assertThat(list(ListLocksRequest.newBuilder().setPrefix("orders/eu").build()).failure)
                    .isNull();
            refusals.add(list(ListLocksRequest.newBuilder().setPrefix("orders").build()).failure);
            refusals.add(list(ListLocksRequest.getDefaultInstance()).failure);
        });
        Principal.bind(Context.current(), "writer")
                .run(() -> refusals.add(
                        list(ListLocksRequest.newBuilder().setPrefix("a").build()).failure));
        assertThat(refusals).extracting(e -> e.getStatus().getCode()).containsOnly(Status.Code.PERMISSION_DENIED);
        assertThat(refusals)
                .extracting(e -> e.getStatus().getDescription())
                .containsExactly(
                        "principal auditor may not read every name under prefix 'orders'",
                        "principal auditor may not read every name",
                        "principal writer may not read every name under prefix 'a'");
        assertThat(logged).as("only the two permitted listings reached the log").hasSize(2);
    }

    @Test
    void aPrefixIsCoveredOnlyByAGrantWhosePrefixStartsIt() {
        Acl acl = Acl.of(Map.of(
                "p",
                List.of(
                        new Acl.Grant("ab", Set.of(Permission.READ)),
                        new Acl.Grant("ac", Set.of(Permission.READ)),
                        new Acl.Grant("", Set.of(Permission.WRITE)))));
        Optional<String> p = Optional.of("p");
        assertThat(acl.allowsPrefix(p, Permission.READ, "ab")).isTrue();
        assertThat(acl.allowsPrefix(p, Permission.READ, "abz")).isTrue();
        // "a" covers "a" and "ad", which neither grant covers, though "ab" and "ac" are both readable.
        assertThat(acl.allowsPrefix(p, Permission.READ, "a")).isFalse();
        assertThat(acl.allowsPrefix(p, Permission.READ, "")).isFalse();
        assertThat(acl.allowsPrefix(p, Permission.WRITE, "")).isTrue();
        assertThat(acl.allowsPrefix(Optional.empty(), Permission.READ, "ab")).isFalse();
        assertThat(Acl.OPEN.allowsPrefix(Optional.empty(), Permission.READ, "")).isTrue();
    }

    private static final class Answered<T> implements Answer<T> {
        T response;
        StatusRuntimeException failure;

        @Override
        public void ok(T r) {
            response = r;
        }

        @Override
        public void fail(StatusRuntimeException error) {
            failure = error;
        }

        @Override
        public boolean cancelled() {
            return false;
        }

        @Override
        public void onCancel(Runnable handler) {}
    }
}
