package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.fatal.OutOfMemoryExit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/tenure} in a tree of its own, with {@code mvn} and {@code java} stood in for by
 * scripts that log what they were asked: two commands started together build once, and a
 * symlink run from another folder builds and runs the tree the script lives in.
 */
class LauncherScriptTest {
    @TempDir
    Path tmp;

    @Test
    void twoCommandsStartedTogetherBuildOnceAndBothRun() throws Exception {
        Path tree = tree();
        Process first = launch(tree.resolve("bin/tenure"), tmp, "status", "a");
        Process second = launch(tree.resolve("bin/tenure"), tmp, "kv", "get", "k");
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as(output(first)).isZero();
        assertThat(second.exitValue()).as(output(second)).isZero();
        assertThat(lines(tree.resolve("mvn.log"))).as("builds").hasSize(1);
        assertThat(lines(tree.resolve("java.log")))
                .anyMatch(l -> l.endsWith("status a"))
                .anyMatch(l -> l.endsWith("kv get k"));
    }

    @Test
    void aSymlinkFromAnotherFolderBuildsAndRunsTheTreeItPointsTo() throws Exception {
        Path tree = tree();
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere/bin"));
        Path link = Files.createSymbolicLink(elsewhere.resolve("tenure"), tree.resolve("bin/tenure"));
        Process p = launch(link, elsewhere, "status", "a");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output(p)).isZero();
        assertThat(lines(tree.resolve("mvn.log"))).containsExactly("build in " + tree.toRealPath());
        assertThat(lines(tree.resolve("java.log")))
                .singleElement()
                .asString()
                .contains("-jar " + tree.toRealPath().resolve("cli/target/tenure.jar"));
    }

    /** A tree with the real bin/tenure and a pom, and stand-ins for mvn and java on its PATH. */
    private Path tree() throws IOException {
        Path tree = Files.createDirectories(tmp.resolve("tree"));
        Files.createDirectories(tree.resolve("bin"));
        Files.createDirectories(tree.resolve("cli"));
        Files.writeString(tree.resolve("pom.xml"), "<project/>\n");
        Path script = tree.resolve("bin/tenure");
        Files.copy(repoRoot().resolve("bin/tenure"), script);
        executable(script);
        Path tools = Files.createDirectories(tmp.resolve("tools"));
        // The build takes a moment, so the second command starts while the first one builds.
        write(tools.resolve("mvn"), """
                #!/usr/bin/env bash
                echo "build in $(pwd)" >> "$(pwd)/mvn.log"
                sleep 2
                mkdir -p cli/target && touch cli/target/tenure.jar
                """);
        write(
                tools.resolve("java"),
                "#!/usr/bin/env bash\n" + "echo \"$*\" >> " + tree.resolve("java.log") + "\n"
                        + "printf '%s\\n' \"$@\" > " + tree.resolve("java.args") + "\n");
        return tree;
    }

    @Test
    void everyJvmItStartsEndsItselfOnRunningOutOfMemoryWhateverTenureJavaOptsSays() throws Exception {
        Path tree = tree();
        for (String javaOpts : new String[] {null, "-Xmx64m"}) {
            Process p = launchWithJavaOpts(javaOpts, tree.resolve("bin/tenure"), tmp, "server", "--data", "d");
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(output(p)).isZero();
            // Exactly the server's own strings: a node checks its JVM for them (OutOfMemoryExit.armed).
            assertThat(lines(tree.resolve("java.args")))
                    .as("java's arguments with TENURE_JAVA_OPTS=%s", javaOpts)
                    .containsSubsequence(OutOfMemoryExit.JVM_OPTIONS);
        }
    }

    private Process launch(Path script, Path workingDir, String... args) throws IOException {
        return launchWithJavaOpts(null, script, workingDir, args);
    }

    /** {@code javaOpts}: TENURE_JAVA_OPTS, or null for none. */
    private Process launchWithJavaOpts(String javaOpts, Path script, Path workingDir, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb =
                new ProcessBuilder(command).directory(workingDir.toFile()).redirectErrorStream(true);
        pb.environment().put("PATH", tmp.resolve("tools") + ":" + System.getenv("PATH"));
        pb.environment().remove("TENURE_JAVA_OPTS");
        if (javaOpts != null) {
            pb.environment().put("TENURE_JAVA_OPTS", javaOpts);
        }
        return pb.start();
    }

    private static Path repoRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("bin/tenure"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text);
        executable(file);
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private static String output(Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
