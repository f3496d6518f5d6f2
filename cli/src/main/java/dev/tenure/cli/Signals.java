package dev.tenure.cli;

import java.util.concurrent.CompletableFuture;
import sun.misc.Signal;

/**
 * SIGINT and SIGTERM as a future, so a holding command can release its lease and exit 0 instead
 * of dying with 130/143 from the JVM's default handlers.
 */
@SuppressWarnings("restriction")
final class Signals {

    private Signals() {}

    static CompletableFuture<String> termination() {
        CompletableFuture<String> stop = new CompletableFuture<>();
        for (String name : new String[] {"INT", "TERM"}) {
            Signal.handle(new Signal(name), s -> stop.complete("SIG" + s.getName()));
        }
        return stop;
    }
}
