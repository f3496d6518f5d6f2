package dev.tenure.lab.process;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * libfaketime, where installed ({@code apt-get install libfaketime}; {@code .ci/run} installs it):
 * a process started with {@link #wallClockEnv} sees its wall clock moved by the offset written
 * in a file, re-read every second, while its monotonic clock runs true, as after an NTP step or
 * an operator's {@code date -s}.
 */
public final class Faketime {
    private Faketime() {}

    /** The library, if this machine has it. */
    public static Optional<Path> library() {
        try (Stream<Path> libs = Stream.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
                .map(d -> Path.of(d, "faketime", "libfaketime.so.1"))) {
            return libs.filter(Files::exists).findFirst();
        }
    }

    /** The environment for a process whose wall clock follows {@code offsetFile} ("+3600", "-30", "+0"). */
    public static Map<String, String> wallClockEnv(Path library, Path offsetFile) {
        return Map.of(
                "LD_PRELOAD", library.toString(),
                "FAKETIME_TIMESTAMP_FILE", offsetFile.toString(),
                "FAKETIME_CACHE_DURATION", "1",
                "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                // Without this the JVM hangs at start under libfaketime 0.9.10.
                "FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }
}
