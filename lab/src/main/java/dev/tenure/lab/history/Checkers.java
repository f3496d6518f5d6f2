package dev.tenure.lab.history;

import java.util.ArrayList;
import java.util.List;

/** The checkers every lab run is judged by. */
public final class Checkers {
    private Checkers() {}

    public static List<Checker> all() {
        return List.of(
                new MonotonicTokens(),
                new NoInterleaving(),
                new NoStaleWrites(),
                new NoLostAcks(),
                new UniqueGrants(),
                new FailClosed());
    }

    public static List<Violation> check(Observation o) {
        List<Violation> out = new ArrayList<>();
        for (Checker c : all()) {
            out.addAll(c.check(o));
        }
        return out;
    }
}
