package dev.tenure.sim;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Result;
import dev.tenure.gateway.WireMapping;
import io.grpc.Status;
import java.util.concurrent.CompletionException;

/**
 * Short trace renderings of core commands, results, events, session stream requests, statuses
 * and errors (their own toString is long).
 */
final class Describe {
    private Describe() {}

    static String command(Command c) {
        if (c instanceof Command.WithSecret x) {
            return command(x.command()); // the session's secret proves its owner; what it carries is the command
        } else if (c instanceof Command.OpenSession x) {
            return "Open(ttl=" + x.ttlMs() + "," + x.clientName() + ")";
        } else if (c instanceof Command.KeepAlive x) {
            return "KeepAlive" + x.sessionIds();
        } else if (c instanceof Command.CloseSession x) {
            return "Close(s" + x.sessionId() + "," + x.end() + (x.attachment() != 0 ? ",a" + x.attachment() : "") + ")";
        } else if (c instanceof Command.ResumeSession x) {
            return "Resume(s" + x.sessionId() + ")";
        } else if (c instanceof Command.Acquire x) {
            return "Acquire(s" + x.sessionId() + ",r" + x.requestId() + "," + x.lock() + ",wait=" + x.waitMs()
                    + (x.policy().maxHoldMs() > 0 ? ",maxHold=" + x.policy().maxHoldMs() : "") + ")";
        } else if (c instanceof Command.Release x) {
            return "Release(s" + x.sessionId() + ",r" + x.requestId() + "," + x.lock() + ",t" + x.token() + ")";
        } else if (c instanceof Command.RenewLease x) {
            return "RenewLease(s" + x.sessionId() + ",r" + x.requestId() + "," + x.lock() + ",t" + x.token() + ")";
        } else if (c instanceof Command.CancelWait x) {
            return "CancelWait(s" + x.sessionId() + ",r" + x.requestId() + ")";
        } else if (c instanceof Command.Put x) {
            return "Put(" + x.key() + "," + x.fenceLock() + ",t" + x.fenceToken() + ")";
        }
        return c.getClass().getSimpleName();
    }

    static String result(Result r) {
        if (r instanceof Result.Granted x) {
            return "Granted(" + x.grant().lock() + ",t" + x.grant().token() + ",s"
                    + x.grant().sessionId() + ")";
        } else if (r instanceof Result.Rejected x) {
            return x.code() + (x.currentToken() != 0 ? "(current t" + x.currentToken() + ")" : "");
        } else if (r instanceof Result.SessionOpened x) {
            return "Opened(s" + x.sessionId() + ")";
        } else if (r instanceof Result.SessionResumed x) {
            return "Resumed(s" + x.sessionId() + ",a" + x.attachment() + ")";
        } else if (r instanceof Result.ResumeSuperseded x) {
            return "Superseded(s" + x.sessionId() + ",a" + x.attachment() + ")";
        } else if (r instanceof Result.KeepAliveResult x) {
            return x.lostSessionIds().isEmpty() ? "renewed" : "lost" + x.lostSessionIds();
        } else if (r instanceof Result.Queued x) {
            return "Queued(holder t" + x.holderToken() + ")";
        } else if (r instanceof Result.LeaseRenewed x) {
            return "Renewed(" + x.remainingMs() + "ms)";
        }
        return r.getClass().getSimpleName();
    }

    static String event(Event e) {
        if (e instanceof Event.WaitResolved x) {
            return "WaitResolved(s" + x.sessionId() + ",r" + x.requestId() + "," + result(x.result())
                    + (x.attempt() > 0 ? ",try " + x.attempt() : "") + ")";
        } else if (e instanceof Event.LeaseEnded x) {
            return "LeaseEnded(s" + x.sessionId() + "," + x.lock() + ",t" + x.token() + "," + x.end() + ")";
        } else if (e instanceof Event.SessionEnded x) {
            return "SessionEnded(s" + x.sessionId() + "," + x.end() + ")";
        }
        return e.toString();
    }

    static String attachRequest(AttachRequest r) {
        return switch (r.getKindCase()) {
            case OPEN ->
                "Open(ttl=" + r.getOpen().getTtlMs() + "," + r.getOpen().getClientName() + ")";
            case RESUME -> "Resume(s" + r.getResume().getSessionId() + ")";
            case KEEP_ALIVE -> "KeepAlive(#" + r.getKeepAlive().getSeq() + ")";
            case CLOSE -> "Close(" + WireMapping.toCore(r.getClose().getEndValue()) + ")";
            case ECHO -> "Echo(#" + r.getEcho().getSeq() + ")";
            case KIND_NOT_SET -> "an empty request";
        };
    }

    static String status(Status s) {
        return s.getCode() + (s.getDescription() == null ? "" : " " + s.getDescription());
    }

    /** The cause that matters, out of the CompletionExceptions around it. */
    static Throwable cause(Throwable t) {
        Throwable c = t;
        while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    static String error(Throwable t) {
        Throwable c = cause(t);
        String m = c.getMessage();
        return c.getClass().getSimpleName() + (m == null ? "" : ": " + (m.length() > 80 ? m.substring(0, 80) : m));
    }
}
