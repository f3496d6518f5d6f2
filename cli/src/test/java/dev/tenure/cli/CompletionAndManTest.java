package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenure completion} prints a script bash can source; {@code tenure man} writes a page per command. */
class CompletionAndManTest {

    @TempDir
    Path dir;

    @Test
    void bashSourcesTheScriptAndCompletesTenure() throws Exception {
        CliRun run = CliRun.of("completion", "bash");
        assertThat(run.exit()).isZero();
        Path script = Files.writeString(dir.resolve("tenure.bash"), run.out(), StandardCharsets.UTF_8);

        String complete = bash("source " + script + " && complete -p tenure");

        assertThat(complete).startsWith("complete ").contains("tenure");
    }

    @Test
    void theScriptOffersTheCommandsAndTheirOptions() throws Exception {
        Path script = Files.writeString(
                dir.resolve("tenure.bash"), CliRun.of("completion", "bash").out());

        // What bash offers after `tenure ac` and after `tenure kv put --if`: what the function
        // the script registers puts in COMPREPLY.
        String commands = bash("source " + script + "; COMP_WORDS=(tenure ac); COMP_CWORD=1;"
                + " COMP_LINE='tenure ac'; COMP_POINT=9; _complete_tenure 2>/dev/null; echo \"${COMPREPLY[@]}\"");
        String options = bash("source " + script + "; COMP_WORDS=(tenure kv put --if); COMP_CWORD=3;"
                + " COMP_LINE='tenure kv put --if'; COMP_POINT=18; _complete_tenure 2>/dev/null;"
                + " echo \"${COMPREPLY[@]}\"");

        assertThat(last(commands)).isEqualTo("acquire");
        assertThat(last(options)).isEqualTo("--if-version");
    }

    @Test
    void zshGetsTheSameScriptThroughBashcompinit() {
        CliRun zsh = CliRun.of("completion", "zsh");
        assertThat(zsh.exit()).isZero();
        assertThat(zsh.out()).isEqualTo(CliRun.of("completion", "bash").out()).contains("bashcompinit");
    }

    @Test
    void manWritesOnePagePerCommand() throws IOException {
        Path pages = dir.resolve("man");
        CliRun run = CliRun.of("man", "--json", "--dir", pages.toString());

        assertThat(run.exit()).as(run.err()).isZero();
        JsonObject o = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(o.get("dir").getAsString()).isEqualTo(pages.toAbsolutePath().toString());
        assertThat(o.getAsJsonArray("pages").asList().stream().map(e -> e.getAsString()))
                .contains("tenure.adoc", "tenure-acquire.adoc", "tenure-kv-put.adoc", "tenure-cluster-start.adoc");
        String acquire = Files.readString(pages.resolve("tenure-acquire.adoc"));
        assertThat(acquire).contains(":doctype: manpage").contains("--ttl").contains("Acquires LOCK");
    }

    private static String last(String output) {
        List<String> lines = output.strip().lines().toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
    }

    private static String bash(String script) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", script)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
