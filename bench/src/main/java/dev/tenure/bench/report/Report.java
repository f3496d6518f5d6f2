package dev.tenure.bench.report;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/** Prints figures as one JSON object per line, or as a fixed-width table for people. */
public final class Report {

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();
    private static final String TABLE_FORMAT = "%-32s %7s %9s %11s %9s %9s %9s %9s %9s  %s%n";

    private final PrintStream out;
    private final boolean json;
    private boolean headerPrinted;

    public Report(PrintStream out, boolean json) {
        this.out = out;
        this.json = json;
    }

    public void print(Figures f) {
        if (json) {
            out.println(GSON.toJson(toJson(f)));
        } else {
            if (!headerPrinted) {
                out.printf(
                        Locale.ROOT,
                        TABLE_FORMAT,
                        "workload",
                        "clients",
                        "ops",
                        "ops/s",
                        "p50 ms",
                        "p90 ms",
                        "p99 ms",
                        "p99.9 ms",
                        "max ms",
                        "");
                headerPrinted = true;
            }
            out.printf(
                    Locale.ROOT,
                    TABLE_FORMAT,
                    f.workload(),
                    f.clients(),
                    f.ops(),
                    String.format(Locale.ROOT, "%.1f", f.opsPerSecond()),
                    ms(f.percentileMs(50)),
                    ms(f.percentileMs(90)),
                    ms(f.percentileMs(99)),
                    ms(f.percentileMs(99.9)),
                    ms(f.maxMs()),
                    extras(f.extra()));
        }
        out.flush();
    }

    /** The JSON shape of one line: fixed fields first, then the workload's own. */
    public static JsonObject toJson(Figures f) {
        JsonObject o = new JsonObject();
        o.addProperty("workload", f.workload());
        o.addProperty("clients", f.clients());
        o.addProperty("ops", f.ops());
        o.addProperty("seconds", round(f.seconds(), 3));
        o.addProperty("ops_per_s", round(f.opsPerSecond(), 1));
        o.addProperty("p50_ms", round(f.percentileMs(50), 3));
        o.addProperty("p90_ms", round(f.percentileMs(90), 3));
        o.addProperty("p99_ms", round(f.percentileMs(99), 3));
        o.addProperty("p999_ms", round(f.percentileMs(99.9), 3));
        o.addProperty("max_ms", round(f.maxMs(), 3));
        for (Map.Entry<String, Object> e : f.extra().entrySet()) {
            Object v = e.getValue();
            if (v instanceof Double d) {
                o.addProperty(e.getKey(), round(d, 3));
            } else if (v instanceof Number n) {
                o.addProperty(e.getKey(), n);
            } else if (v instanceof Boolean b) {
                o.addProperty(e.getKey(), b);
            } else {
                o.addProperty(e.getKey(), String.valueOf(v));
            }
        }
        return o;
    }

    private static String ms(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String extras(Map<String, Object> extra) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Object> e : extra.entrySet()) {
            if (b.length() > 0) {
                b.append(' ');
            }
            Object v = e.getValue();
            b.append(e.getKey())
                    .append('=')
                    .append(v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : String.valueOf(v));
        }
        return b.toString();
    }

    private static double round(double v, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(v * scale) / scale;
    }
}
