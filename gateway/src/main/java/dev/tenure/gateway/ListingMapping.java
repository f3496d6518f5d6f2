package dev.tenure.gateway;

import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.ListedLock;
import dev.tenure.core.Command;
import dev.tenure.core.Result;
import dev.tenure.log.v1.Done;
import dev.tenure.log.v1.ListLocks;

/** The lock listing between the wire and the core: one page each way. */
final class ListingMapping {
    private ListingMapping() {}

    static Command toCommand(ListLocks log) {
        var r = log.getRequest();
        return new Command.ListLocks(r.getPrefix(), r.getAfter(), r.getLimit(), log.getBytesMax());
    }

    static ListLocksResponse toWire(Result result) {
        if (!(result instanceof Result.LockList page)) {
            Done d = WireMapping.done(result);
            return ListLocksResponse.newBuilder()
                    .setCode(d.getCode())
                    .setMessage(d.getMessage())
                    .build();
        }
        ListLocksResponse.Builder b = ListLocksResponse.newBuilder()
                .setCodeValue(WireMapping.toWire(dev.tenure.core.Code.OK))
                .setMore(page.more())
                .setNowMs(page.nowMs());
        for (Result.LockEntry e : page.locks()) {
            ListedLock.Builder l = b.addLocksBuilder()
                    .setLock(e.lock())
                    .setWaiters(e.waiters())
                    .setDelayUntilMs(e.delayUntilMs());
            Result.Holder first = e.holder();
            if (first != null) {
                l.setHolder(WireMapping.holder(first));
            }
            for (Result.Holder h : e.holders()) {
                l.addHolders(WireMapping.holder(h));
            }
        }
        return b.build();
    }
}
