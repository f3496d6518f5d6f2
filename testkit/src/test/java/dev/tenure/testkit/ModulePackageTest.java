package dev.tenure.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every class this module compiles, main and test, lives under {@code dev.tenure.testkit}: a class in
 * another module's package would reach that module's package-private parts from outside it, where
 * neither module's rules see it (docs/developing.md, "Module rules").
 */
class ModulePackageTest {
    @Test
    void everyClassLivesUnderTheModulePackage() {
        // Only these classes' own packages matter: what they refer to (the JDK, libraries) is not
        // imported, which would be most of the run time.
        ArchConfiguration.get().setResolveMissingDependenciesFromClassPath(false);
        // The module's own output (Surefire runs in the module's folder), not the classpath: the
        // dependencies' classes are theirs to check. An empty import fails the rule, so a wrong
        // folder cannot pass.
        JavaClasses classes =
                new ClassFileImporter().importPaths(Path.of("target/classes"), Path.of("target/test-classes"));
        classes().should().resideInAPackage("dev.tenure.testkit..").check(classes);
    }
}
