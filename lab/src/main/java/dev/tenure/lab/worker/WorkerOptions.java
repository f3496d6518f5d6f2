package dev.tenure.lab.worker;

import java.util.List;

/**
 * A worker's command line: {@code --name A --service tenure ...}, every option with a default; a
 * later occurrence of an option overrides an earlier one.
 */
final class WorkerOptions {
    String name = "A";
    String service = "tenure";
    List<String> lockEndpoints = List.of();
    String store = "";
    String lock = "lab";
    String resource = "lab";
    long ttlMs = 8000;
    int writes = 5;
    long intervalMs = 200;
    boolean checkEachWrite;
    int pauseBeforeWrite;
    boolean pauseBeforeAcquire;
    boolean pauseAfterAcquire;
    boolean pauseBeforeRelease;
    /** Write (at most {@code writes} times) until the lab sends a line on stdin, then release. */
    boolean untilGo;

    long acquireWaitMs = 60_000;
    long requestTimeoutMs = 5000;
    long releaseRetryMs = 10_000;
    long fenceMinMs = 100;
    /**
     * How long a fence refused for too little time left (the lease held, but not provably for
     * {@code fenceMinMs}) is checked again before the holder gives up; 0: it stops at once.
     */
    long fenceWaitMs;

    long disconnectGraceMs;

    static WorkerOptions parse(String[] args) {
        WorkerOptions o = new WorkerOptions();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--check-each-write" -> o.checkEachWrite = true;
                case "--pause-before-acquire" -> o.pauseBeforeAcquire = true;
                case "--pause-after-acquire" -> o.pauseAfterAcquire = true;
                case "--pause-before-release" -> o.pauseBeforeRelease = true;
                case "--until-go" -> o.untilGo = true;
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(flag + " needs a value");
                    }
                    o.set(flag, args[++i]);
                }
            }
        }
        return o;
    }

    private void set(String flag, String v) {
        switch (flag) {
            case "--name" -> name = v;
            case "--service" -> service = v;
            case "--lock-endpoints" -> lockEndpoints = List.of(v.split(","));
            case "--store" -> store = v;
            case "--lock" -> lock = v;
            case "--resource" -> resource = v;
            case "--ttl-ms" -> ttlMs = Long.parseLong(v);
            case "--writes" -> writes = Integer.parseInt(v);
            case "--interval-ms" -> intervalMs = Long.parseLong(v);
            case "--pause-before-write" -> pauseBeforeWrite = Integer.parseInt(v);
            case "--acquire-wait-ms" -> acquireWaitMs = Long.parseLong(v);
            case "--request-timeout-ms" -> requestTimeoutMs = Long.parseLong(v);
            case "--release-retry-ms" -> releaseRetryMs = Long.parseLong(v);
            case "--fence-min-ms" -> fenceMinMs = Long.parseLong(v);
            case "--fence-wait-ms" -> fenceWaitMs = Long.parseLong(v);
            case "--disconnect-grace-ms" -> disconnectGraceMs = Long.parseLong(v);
            default -> throw new IllegalArgumentException("unknown option " + flag);
        }
    }
}
