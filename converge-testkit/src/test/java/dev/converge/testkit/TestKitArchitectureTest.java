package dev.converge.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * What a user's tests compile against drives the engine through its public types only: the test
 * kit reaches no {@code internal} package, and neither do its own tests (the engine's white-box
 * tests and store contracts live in the engine's module, beside what they test).
 */
class TestKitArchitectureTest {
    private static final JavaClasses KIT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.converge.testkit");

    /** This module's own classes, main and test, and nothing from the jars it depends on. */
    private static final JavaClasses MODULE = new ClassFileImporter()
            .importPaths(java.nio.file.Path.of("target/classes"), java.nio.file.Path.of("target/test-classes"));

    @Test
    void theKitsTestsUseOnlyTheEnginesPublicTypes() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("the engine's white-box tests belong beside the engine, in converge-core")
                .check(MODULE);
    }

    @Test
    void theKitUsesOnlyTheEnginesPublicTypes() {
        noClasses().that().resideInAPackage("dev.converge.testkit..")
                .should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("a user's tests would break on a change the engine is free to make")
                .check(KIT);
    }
}
