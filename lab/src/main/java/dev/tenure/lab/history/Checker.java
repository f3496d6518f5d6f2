package dev.tenure.lab.history;

import java.util.List;

/** One safety property checked on an {@link Observation}. */
public interface Checker {
    String name();

    List<Violation> check(Observation o);
}
