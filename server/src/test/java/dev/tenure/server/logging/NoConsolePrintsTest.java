package dev.tenure.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The node writes through its log (SLF4J) only, so that its format and levels hold for every line.
 * The one exception is the fatal line, written straight to stderr when nothing else may work
 * (Fatal's class comment says why).
 */
class NoConsolePrintsTest {
    private static final Pattern CONSOLE = Pattern.compile("System\\.(out|err)\\b|printStackTrace\\(\\)");

    /** The last-resort path: the fatal line, and the descriptor it goes to. */
    private static final List<String> ALLOWED = List.of("dev/tenure/server/fatal/Fatal.java");

    static List<String> consoleUses(String source) {
        String code = source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
        List<String> found = new ArrayList<>();
        Matcher m = CONSOLE.matcher(code);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    @Test
    void noMainSourceButTheFatalLineWritesToTheConsole() throws IOException {
        Path root = Path.of("src/main/java");
        List<Path> sources;
        try (Stream<Path> files = Files.walk(root)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertThat(sources).hasSizeGreaterThan(50);
        List<String> problems = new ArrayList<>();
        for (Path p : sources) {
            String name = root.relativize(p).toString().replace('\\', '/');
            if (ALLOWED.contains(name)) {
                continue;
            }
            for (String use : consoleUses(Files.readString(p, StandardCharsets.UTF_8))) {
                problems.add(name + ": " + use);
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theScannerCatchesWhatItShould() {
        assertThat(consoleUses("System.err.println(\"tenure: x\");")).containsExactly("System.err");
        assertThat(consoleUses("new ThrottledLog(System.err)")).containsExactly("System.err");
        assertThat(consoleUses("e.printStackTrace();")).containsExactly("printStackTrace()");
        assertThat(consoleUses("// System.err is not used")).isEmpty();
        assertThat(consoleUses("e.printStackTrace(log);")).isEmpty();
    }
}
