package dev.tenure.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a server process's CPU time and memory from outside it, as an operator would: CPU from
 * {@code /proc/PID/stat} (user + system ticks), resident memory from {@code /proc/PID/status},
 * and the live Java heap from {@code jcmd PID GC.class_histogram}, which runs a full collection
 * first, so the figure is what is reachable, not what garbage happens to be lying around.
 */
public final class ServerProbe {

    private static final Pattern HISTO_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+).*$");
    private static final Pattern HISTO_TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

    private static final long TICKS_PER_SECOND = clockTicksPerSecond();

    private ServerProbe() {}

    /** User + system CPU time the process has used, in nanoseconds. */
    public static long cpuNanos(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        return cpuNanosFromStat(stat, TICKS_PER_SECOND);
    }

    /** Fields 14 and 15 of proc(5) stat (utime, stime); the command name in parentheses may hold spaces. */
    static long cpuNanosFromStat(String stat, long ticksPerSecond) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+", 0);
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks * (1_000_000_000L / ticksPerSecond);
    }

    /** Resident set size in bytes (VmRSS). */
    public static long rssBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    /** Live heap by class after a full GC, with the total under the key {@code ""}. */
    public static Map<String, Long> liveHeap(long pid) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(
                        Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", Long.toString(pid), "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " GC.class_histogram failed: "
                    + out.lines().findFirst().orElse(""));
        }
        return parseHistogram(out);
    }

    static Map<String, Long> parseHistogram(String out) throws IOException {
        Map<String, Long> bytes = new TreeMap<>();
        for (String line : out.split("\n", 0)) {
            Matcher m = HISTO_LINE.matcher(line);
            if (m.matches()) {
                bytes.merge(m.group(3), Long.parseLong(m.group(2)), Long::sum);
                continue;
            }
            Matcher t = HISTO_TOTAL.matcher(line);
            if (t.matches()) {
                bytes.put("", Long.parseLong(t.group(2)));
            }
        }
        if (!bytes.containsKey("")) {
            throw new IOException("no Total line in the class histogram");
        }
        return bytes;
    }

    /** The classes whose live bytes grew most from {@code before} to {@code after}, largest first. */
    static List<Map.Entry<String, Long>> topGrowth(Map<String, Long> before, Map<String, Long> after, int n) {
        List<Map.Entry<String, Long>> growth = new ArrayList<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            if (!e.getKey().isEmpty()) {
                growth.add(Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)));
            }
        }
        growth.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        return growth.subList(0, Math.min(n, growth.size()));
    }

    private static long clockTicksPerSecond() {
        // sysconf(_SC_CLK_TCK) is 100 on every Linux this runs on; getconf says so if it differs.
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
