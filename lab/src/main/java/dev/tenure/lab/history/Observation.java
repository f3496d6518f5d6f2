package dev.tenure.lab.history;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything a run left to check: the operation history, the resource's accept log, each
 * resource's final value as read back from the real store after the run, and the windows of
 * degraded conditions.
 */
public record Observation(
        List<Event> events, List<Accept> accepts, Map<String, Optional<String>> finalValues, List<Window> windows) {
    public Observation {
        events = List.copyOf(events);
        accepts = List.copyOf(accepts);
        finalValues = new TreeMap<>(finalValues);
        windows = List.copyOf(windows);
    }
}
