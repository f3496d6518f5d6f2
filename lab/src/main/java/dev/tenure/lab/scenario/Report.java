package dev.tenure.lab.scenario;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.lab.history.Violation;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A scenario's result as one JSON line or one table row. */
public final class Report {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private Report() {}

    public static String json(ScenarioResult r, long seed, int scale) {
        JsonObject o = new JsonObject();
        o.addProperty("scenario", r.scenario());
        o.addProperty("seed", seed);
        o.addProperty("scale", scale);
        o.addProperty("naive_violations", r.naive().violations().size());
        o.addProperty("tenure_violations", r.tenure().violations().size());
        o.addProperty("faults", r.naive().faults() + r.tenure().faults());
        o.addProperty("ops", r.naive().ops() + r.tenure().ops());
        o.addProperty("stale_writes_rejected", r.tenure().rejected());
        o.addProperty("takeover_ms", r.tenure().takeoverMs());
        o.addProperty("naive_takeover_ms", r.naive().takeoverMs());
        o.addProperty("tenure_store", r.tenure().backend());
        o.addProperty("landed", r.landed());
        o.addProperty("passed", r.passed());
        o.add("naive_properties_broken", byChecker(r.naive().violations()));
        o.add("tenure_violation_list", messages(r.tenure().violations()));
        if (r.naive().error() != null) {
            o.addProperty("naive_error", r.naive().error());
        }
        if (r.tenure().error() != null) {
            o.addProperty("tenure_error", r.tenure().error());
        }
        o.addProperty("duration_ms", r.durationMs());
        return GSON.toJson(o);
    }

    private static JsonObject byChecker(List<Violation> violations) {
        Map<String, Integer> counts = new TreeMap<>();
        violations.forEach(v -> counts.merge(v.checker(), 1, Integer::sum));
        JsonObject o = new JsonObject();
        counts.forEach(o::addProperty);
        return o;
    }

    private static JsonArray messages(List<Violation> violations) {
        JsonArray a = new JsonArray();
        violations.forEach(v -> a.add(v.toString()));
        return a;
    }

    /** One readable line per scenario, as it finishes. */
    /** A randomized run's row: Tenure only, so no naive figures. */
    public static String json(ArmResult r, long seed, long durationMs) {
        JsonObject o = new JsonObject();
        o.addProperty("scenario", RandomRun.NAME);
        o.addProperty("seed", seed);
        o.addProperty("tenure_violations", r.violations().size());
        o.addProperty("faults", r.faults());
        o.addProperty("ops", r.ops());
        o.addProperty("stale_writes_rejected", r.rejected());
        o.addProperty("tenure_store", r.backend());
        o.addProperty("passed", r.error() == null && r.violations().isEmpty());
        o.add("tenure_violation_list", messages(r.violations()));
        if (r.error() != null) {
            o.addProperty("tenure_error", r.error());
        }
        o.addProperty("duration_ms", durationMs);
        return GSON.toJson(o);
    }

    /** A rolling restart's row: Tenure only, with the longest gap between grants. */
    public static String json(RollingRestart.Result r, long seed, int scale) {
        JsonObject o = new JsonObject();
        o.addProperty("scenario", RollingRestart.NAME);
        o.addProperty("seed", seed);
        o.addProperty("scale", scale);
        o.addProperty("tenure_violations", r.arm().violations().size());
        o.addProperty("faults", r.arm().faults());
        o.addProperty("ops", r.arm().ops());
        o.addProperty("stale_writes_rejected", r.arm().rejected());
        o.addProperty("tenure_store", r.arm().backend());
        JsonArray order = new JsonArray();
        r.restarts().forEach(order::add);
        o.add("restarted_nodes", order);
        o.addProperty("longest_grant_gap_ms", r.longestGrantGapMs());
        o.addProperty("passed", r.passed());
        o.add("tenure_violation_list", messages(r.arm().violations()));
        if (r.arm().error() != null) {
            o.addProperty("tenure_error", r.arm().error());
        }
        o.addProperty("duration_ms", r.durationMs());
        return GSON.toJson(o);
    }

    public static String line(ScenarioResult r) {
        StringBuilder b = new StringBuilder();
        b.append(r.scenario()).append(": ").append(verdict(r));
        b.append("; naive broke ").append(r.naive().violations().size()).append(" ");
        b.append(byChecker(r.naive().violations()));
        b.append(", tenure ").append(r.tenure().violations().size());
        for (Violation v : r.tenure().violations()) {
            b.append("\n  TENURE VIOLATION ").append(v);
        }
        if (!r.naive().violations().isEmpty()) {
            b.append("\n  e.g. naive: ").append(r.naive().violations().get(0));
        }
        if (r.naive().error() != null) {
            b.append("\n  naive arm could not run: ").append(r.naive().error());
        }
        if (r.tenure().error() != null) {
            b.append("\n  tenure arm could not run: ").append(r.tenure().error());
        }
        return b.toString();
    }

    static String verdict(ScenarioResult r) {
        if (!r.ran()) {
            return "ERROR";
        }
        if (r.tenureViolated()) {
            return "TENURE VIOLATED";
        }
        return r.landed() ? "ok" : "NOT LANDED";
    }

    public static String table(List<ScenarioResult> results) {
        String format = "%-20s %-16s %6s %7s %6s %5s %6s %9s %9s  %s%n";
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                format, "scenario", "verdict", "naive", "tenure", "faults", "ops", "stale", "takeover", "naive", ""));
        b.append(String.format(format, "", "", "viol.", "viol.", "", "", "reject", "ms", "takeover", "tenure store"));
        for (ScenarioResult r : results) {
            b.append(String.format(
                    format,
                    r.scenario(),
                    verdict(r),
                    r.naive().violations().size(),
                    r.tenure().violations().size(),
                    r.naive().faults() + r.tenure().faults(),
                    r.naive().ops() + r.tenure().ops(),
                    r.tenure().rejected(),
                    r.tenure().takeoverMs(),
                    r.naive().takeoverMs(),
                    r.tenure().backend()));
        }
        return b.toString();
    }
}
