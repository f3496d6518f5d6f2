package dev.tenure.client;

import java.util.ArrayList;
import java.util.List;

/**
 * Internal work decided under a lock and done by the same thread right after releasing it:
 * sends, and completions of futures only the client itself waits on. (User-visible events go
 * through the session's {@link EventQueue} instead.)
 */
final class Effects {
    private final List<Runnable> actions = new ArrayList<>();

    void add(Runnable action) {
        actions.add(action);
    }

    void run() {
        for (Runnable a : actions) {
            a.run();
        }
        actions.clear();
    }
}
