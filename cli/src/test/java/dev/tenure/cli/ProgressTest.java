package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The progress line: what it draws on a terminal, and that it draws nothing when output is piped. */
class ProgressTest {

    @Test
    void theLineNamesTheOperationItsStatusAndWholeSeconds() {
        assertThat(Progress.line("tenure bench", "contended (3/8)", Duration.ofMillis(12_900)))
                .isEqualTo("tenure bench: contended (3/8) (12s)");
        assertThat(Progress.line("tenure upgrade-data", "", Duration.ZERO)).isEqualTo("tenure upgrade-data (0s)");
    }

    @Test
    void aLongLineIsCutToTheWidthOfATerminal() {
        String line = Progress.line("tenure lab", "x".repeat(200), Duration.ofSeconds(1));
        assertThat(line)
                .hasSize(Progress.WIDTH_MAX)
                .startsWith("tenure lab: xxx")
                .endsWith("x...");
    }

    @Test
    void eachFrameReturnsToTheStartAndBlanksWhatALongerLineLeft() {
        assertThat(Progress.frame("abc", 0)).isEqualTo("\rabc");
        assertThat(Progress.frame("abc", 6)).isEqualTo("\rabc   ");
        assertThat(Progress.frame("abcdef", 3)).isEqualTo("\rabcdef");
        assertThat(Progress.frame("", 4)).isEqualTo("\r    ");
    }

    @Test
    void onATerminalItRedrawsOneLineAndClearsItWhenDone() {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(terminal, true, StandardCharsets.UTF_8);
        try (Progress progress = Progress.start("tenure bench", err)) {
            progress.status("hold (8/8)");
            progress.wrap(err).println("a line of the command's own");
        }
        String drawn = terminal.toString(StandardCharsets.UTF_8);

        assertThat(drawn).startsWith("\rtenure bench").contains("\rtenure bench: hold (8/8) (");
        assertThat(drawn.chars().filter(c -> c == '\n').count())
                .as("line feeds: the command's own only")
                .isEqualTo(1);
        // The command's line starts at the line's start, over whatever was drawn before it.
        int own = drawn.indexOf("a line of the command's own\n");
        assertThat(own).isGreaterThan(drawn.indexOf("hold (8/8)"));
        assertThat(drawn.charAt(own - 1)).isEqualTo('\r');
        // Cleared at the end: back to the start, blanks, back to the start.
        assertThat(drawn).matches("(?s).*\r *\r");
    }

    @Test
    void withoutATerminalItDrawsNothingAndLeavesTheStreamsAsTheyAre() {
        // Surefire runs this JVM with stdin and stdout piped, as a script or an IT runs tenure.
        assertThat(Progress.onTerminal()).isFalse();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (Progress progress = Progress.start("tenure bench")) {
            progress.status("uncontended (1/1)");
            assertThat(progress.wrap(System.out)).isSameAs(System.out);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.size()).isZero();
    }
}
