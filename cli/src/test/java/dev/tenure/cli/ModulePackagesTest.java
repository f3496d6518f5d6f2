package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class the build compiled, main and test, lives under its own module's package
 * ({@code dev.tenure.<module>}): a class in another module's package would reach that module's
 * package-private parts from outside it, where neither module's dependency rule sees it
 * (docs/developing.md, "Module rules"). javac writes each class under its package's folder, so
 * the folders of every module's output are its classes' packages. Runs here, in the module the
 * build makes last, over every module's output under the repository root.
 */
class ModulePackagesTest {
    /** The modules the cli is built after: their output is there whenever this test runs. */
    private static final List<String> ALWAYS_BUILT = List.of(
            "api", "log", "core", "gateway", "testkit", "process", "server", "client", "jdbc", "lab", "bench", "cli");

    private static final Path MODULE_DESCRIPTOR = Path.of("module-info.class");

    @Test
    void everyModulesClassesLiveUnderItsPackage() throws IOException {
        Path root = repoRoot();
        List<String> misplaced = new ArrayList<>();
        TreeSet<String> checked = new TreeSet<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.exists(m.resolve("pom.xml")))
                    .sorted()
                    .toList()) {
                String name = module.getFileName().toString();
                Path home = Path.of("dev", "tenure", name);
                for (Path output : List.of(module.resolve("target/classes"), module.resolve("target/test-classes"))) {
                    for (Path type : classFiles(output)) {
                        checked.add(name);
                        // A module descriptor (the client's) names the module and is in no package.
                        if (!type.startsWith(home) && !type.equals(MODULE_DESCRIPTOR)) {
                            misplaced.add(name + ": " + type);
                        }
                    }
                }
            }
        }
        assertThat(checked).as("modules whose classes were found").containsAll(ALWAYS_BUILT);
        assertThat(misplaced).as("classes outside their module's package").isEmpty();
    }

    private static List<Path> classFiles(Path output) throws IOException {
        if (!Files.isDirectory(output)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(output)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(output::relativize)
                    .toList();
        }
    }

    /** The repository's root: the directory that holds bin/tenure, above the working directory. */
    static Path repoRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("bin/tenure"))) {
            dir = dir.getParent();
        }
        return dir;
    }
}
