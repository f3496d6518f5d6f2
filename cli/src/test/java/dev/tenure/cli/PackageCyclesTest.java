package dev.tenure.cli;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No package of any module imports a package that imports it back, directly or through others
 * (docs/developing.md, "No package cycles"): a package then says what its classes do, and can be
 * read, tested and moved without the ones above it. Runs here, in the module the build makes last,
 * over every module's compiled main classes under the repository root, as {@link
 * ModulePackagesTest} does; the simulation's are checked too whenever it was built. Test classes
 * are not checked: a test fixture shared by the tests of several packages may import what they
 * test.
 */
class PackageCyclesTest {
    /** The modules the cli is built after: their output is there whenever this test runs. */
    private static final List<String> ALWAYS_BUILT = List.of(
            "api", "log", "core", "gateway", "testkit", "process", "server", "client", "jdbc", "lab", "bench", "cli");

    /**
     * Cycles that are known, as ArchUnit names them: each is allowed until it is gone, and no
     * other cycle is. The client's three packages use one another: the exported API builds on its
     * implementation (client.internal), which calls back into it, and the internal hooks
     * (client.spi: the time source and TLS files the builder takes, and the doors the simulation
     * reaches the builder and leases through) name the API's types as the API names theirs.
     */
    private static final Set<String> KNOWN = Set.of(
            "client: client -> client.internal -> client",
            "client: client -> client.internal -> client.spi -> client",
            "client: client -> client.spi -> client",
            "client: client -> client.spi -> client.internal -> client",
            "client: client.internal -> client.spi -> client.internal");

    @Test
    void noModuleHasAPackageCycle() throws IOException {
        // A cycle among a module's packages runs through its own classes only: reading every
        // library class they name from the class path would cost a minute and find nothing more.
        ArchConfiguration.get().setResolveMissingDependenciesFromClassPath(false);
        Path root = ModulePackagesTest.repoRoot();
        TreeSet<String> checked = new TreeSet<>();
        List<String> cycles = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.exists(m.resolve("pom.xml")))
                    .sorted()
                    .toList()) {
                Path output = module.resolve("target/classes");
                if (!Files.isDirectory(output)) {
                    continue;
                }
                String name = module.getFileName().toString();
                checked.add(name);
                cycles.addAll(cycles(name, new ClassFileImporter().importPath(output)));
            }
        }
        assertThat(checked).as("modules whose classes were found").containsAll(ALWAYS_BUILT);
        cycles.removeAll(KNOWN);
        assertThat(cycles)
                .as("package cycles (module: package -> ... -> package)")
                .isEmpty();
    }

    /** Each cycle among the packages under dev.tenure of {@code classes}, as "module: a -> b -> a". */
    private static List<String> cycles(String module, JavaClasses classes) {
        return slices()
                .matching("dev.tenure.(**)")
                .should()
                .beFreeOfCycles()
                .allowEmptyShould(true)
                .evaluate(classes)
                .getFailureReport()
                .getDetails()
                .stream()
                .filter(detail -> detail.startsWith("Cycle detected: "))
                .map(detail -> module + ": "
                        + detail.substring("Cycle detected: ".length())
                                .lines()
                                .takeWhile(line -> !line.strip().matches("\\d+\\. Dependencies of .*"))
                                .map(String::strip)
                                .reduce("", String::concat)
                                .replace("Slice ", "")
                                .replace("->", " -> ")
                                .replaceAll(" +", " ")
                                .strip())
                .toList();
    }
}
