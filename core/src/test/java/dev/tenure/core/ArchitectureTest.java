package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * core must stay deterministic: no clock, no threads, no randomness, no hash-ordered collections,
 * no file or network I/O, no Java serialization, no logging. Scans the main sources (comments stripped, so
 * a comment may name what it avoids).
 */
class ArchitectureTest {
    private static final List<Pattern> BANNED = Stream.of(
                    "System\\.currentTimeMillis",
                    "System\\.nanoTime",
                    "Instant\\.now",
                    "\\bClock\\b",
                    "\\bThread\\b",
                    "\\bRandom\\b",
                    "ThreadLocalRandom",
                    "SecureRandom",
                    "Math\\.random",
                    "UUID\\.randomUUID",
                    "\\bHashMap\\b",
                    "\\bHashSet\\b",
                    "java\\.io\\.File",
                    "java\\.nio\\.file",
                    "java\\.net\\b",
                    "ObjectOutputStream",
                    "ObjectInputStream",
                    "\\bSerializable\\b",
                    "LocalDateTime\\.now",
                    "System\\.getenv",
                    "System\\.getProperty",
                    "\\bsynchronized\\b",
                    "java\\.util\\.concurrent",
                    // Log-free: a result is a value the caller may log; a core that logged would
                    // write from every replica, at replay too, through whatever the host set up.
                    "java\\.util\\.logging",
                    "System\\.getLogger",
                    "System\\.(out|err)\\b",
                    "printStackTrace",
                    "org\\.slf4j")
            .map(Pattern::compile)
            .toList();

    static List<String> violations(String source) {
        String code = stripComments(source);
        List<String> found = new ArrayList<>();
        for (Pattern p : BANNED) {
            Matcher m = p.matcher(code);
            if (m.find()) {
                found.add(m.group());
            }
        }
        return found;
    }

    static String stripComments(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
    }

    @Test
    void mainSourcesUseNoClockThreadsRandomnessHashOrderOrIo() throws IOException {
        Path root = Paths.get("src/main/java");
        List<Path> sources;
        try (Stream<Path> files = Files.walk(root)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertThat(sources).hasSizeGreaterThan(10);
        List<String> problems = new ArrayList<>();
        for (Path p : sources) {
            for (String v : violations(Files.readString(p, StandardCharsets.UTF_8))) {
                problems.add(root.relativize(p) + ": " + v);
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theScannerCatchesWhatItShould() {
        assertThat(violations("long t = System.currentTimeMillis();")).isNotEmpty();
        assertThat(violations("var m = new HashMap<String, Long>();")).containsExactly("HashMap");
        assertThat(violations("new Thread(r).start();")).containsExactly("Thread");
        assertThat(violations("import java.net.Socket;")).isNotEmpty();
        assertThat(violations("import java.util.Random;")).isNotEmpty();
        assertThat(violations("var m = new LinkedHashMap<String, Long>(); // not a HashMap"))
                .isEmpty();
        assertThat(violations("/* Clock */ int x;")).isEmpty();
        assertThat(violations("import org.slf4j.Logger;")).containsExactly("org.slf4j");
        assertThat(violations("System.err.println(\"granted\");")).containsExactly("System.err");
        assertThat(violations("System.getLogger(\"core\").log(INFO, \"x\");")).containsExactly("System.getLogger");
        assertThat(violations("import java.util.logging.Logger;")).containsExactly("java.util.logging");
    }
}
