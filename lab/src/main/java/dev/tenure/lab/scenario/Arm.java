package dev.tenure.lab.scenario;

import java.util.Locale;

/** Which lock a run uses: the naive TTL lock (the baseline) or Tenure. */
public enum Arm {
    NAIVE,
    TENURE;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
