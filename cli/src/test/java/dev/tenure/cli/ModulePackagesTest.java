package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class of every module, main and test, lives under its own module's package: a class in
 * another module's package would reach that module's package-private parts from outside it, where
 * neither module's dependency rule sees it (docs/developing.md, "Module rules").
 *
 * <p>A module's package is {@code dev.tenure.<folder>}, except where {@link #PACKAGES} names
 * another: a folder whose name is not a Java identifier, and each example under
 * {@code examples/}, which lives under {@code dev.tenure.example.<its own name>} (an example is
 * code users copy, so its package says "example", and each has its own so that two examples never
 * share package-private parts). An example missing from the table fails the test.
 *
 * <p>Two checks, so that neither passes only because of the order the build makes modules in:
 * every module's sources (always there) declare a package under the module's; and every class the
 * build compiled (generated code too) is in a folder under the module's package, for every module
 * whose output exists; the output of the modules the cli is built after must exist.
 */
class ModulePackagesTest {
    /** The modules the cli is built after: their output is there whenever this test runs. */
    private static final List<String> ALWAYS_BUILT = List.of(
            "api", "log", "core", "gateway", "testkit", "process", "server", "client", "jdbc", "lab", "bench", "cli");

    /** Module folders (relative to the root) whose package is not {@code dev.tenure.<folder>}. */
    static final Map<String, String> PACKAGES = new TreeMap<>(Map.of(
            "packaging-it", "dev.tenure.packaging",
            "examples/spring-boot-scheduler", "dev.tenure.example.scheduler"));

    private static final Path MODULE_DESCRIPTOR = Path.of("module-info.class");

    @Test
    void everyModulesSourcesDeclareItsPackage() throws IOException {
        List<String> misplaced = new ArrayList<>();
        TreeSet<String> checked = new TreeSet<>();
        for (String module : modules(repoRoot())) {
            String home = packageOf(module);
            for (Path source : javaSources(repoRoot().resolve(module))) {
                checked.add(module);
                String declared = declaredPackage(source);
                if (!declared.equals(home) && !declared.startsWith(home + ".")) {
                    misplaced.add(module + ": " + repoRoot().relativize(source) + " declares '" + declared + "'");
                }
            }
        }
        assertThat(checked)
                .as("modules whose sources were found")
                // log's classes are all generated from its .proto: it has no Java sources.
                .containsAll(ALWAYS_BUILT.stream().filter(m -> !m.equals("log")).toList())
                .contains("packaging-it", "shedlock", "spring", "examples/spring-boot-scheduler");
        assertThat(misplaced).as("sources outside their module's package").isEmpty();
    }

    @Test
    void everyModulesClassesLiveUnderItsPackage() throws IOException {
        List<String> misplaced = new ArrayList<>();
        TreeSet<String> checked = new TreeSet<>();
        for (String module : modules(repoRoot())) {
            Path home = Path.of("", packageOf(module).split("\\."));
            Path dir = repoRoot().resolve(module);
            for (Path output : List.of(dir.resolve("target/classes"), dir.resolve("target/test-classes"))) {
                for (Path type : classFiles(output)) {
                    checked.add(module);
                    // A module descriptor (the client's) names the module and is in no package.
                    if (!type.startsWith(home) && !type.equals(MODULE_DESCRIPTOR)) {
                        misplaced.add(module + ": " + type);
                    }
                }
            }
        }
        assertThat(checked).as("modules whose classes were found").containsAll(ALWAYS_BUILT);
        assertThat(misplaced).as("classes outside their module's package").isEmpty();
    }

    @Test
    void everyExampleHasItsPackageListed() throws IOException {
        for (String module : modules(repoRoot())) {
            if (module.startsWith("examples/")) {
                assertThat(PACKAGES)
                        .as(module + " needs its package (dev.tenure.example.<name>) in PACKAGES")
                        .containsKey(module);
                assertThat(PACKAGES.get(module)).startsWith("dev.tenure.example.");
            }
        }
    }

    /** The package a module's classes belong under. */
    static String packageOf(String module) {
        String listed = PACKAGES.get(module);
        if (listed != null) {
            return listed;
        }
        if (module.startsWith("examples/")) {
            throw new AssertionError(module + " is an example without its package in PACKAGES");
        }
        return "dev.tenure." + module;
    }

    /** Every folder with a pom.xml at the root and under examples/, relative to the root, sorted. */
    static List<String> modules(Path root) throws IOException {
        List<String> modules = new ArrayList<>();
        for (Path parent : List.of(root, root.resolve("examples"))) {
            if (!Files.isDirectory(parent)) {
                continue;
            }
            try (Stream<Path> dirs = Files.list(parent)) {
                dirs.filter(d -> Files.exists(d.resolve("pom.xml")))
                        .map(d -> root.relativize(d).toString().replace('\\', '/'))
                        .forEach(modules::add);
            }
        }
        modules.sort(null);
        return modules;
    }

    private static List<Path> javaSources(Path module) throws IOException {
        Path src = module.resolve("src");
        if (!Files.isDirectory(src)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(src)) {
            // A module descriptor (the client's) names the module and declares no package.
            return files.filter(f -> f.toString().endsWith(".java")
                            && !f.getFileName().toString().equals("module-info.java"))
                    .sorted()
                    .toList();
        }
    }

    /** The name a source's package declaration gives, or "" (the unnamed package) if it has none. */
    private static String declaredPackage(Path source) throws IOException {
        for (String line : Files.readAllLines(source, StandardCharsets.UTF_8)) {
            String t = line.strip();
            if (t.startsWith("package ") && t.endsWith(";")) {
                return t.substring("package ".length(), t.length() - 1).strip();
            }
        }
        return "";
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
