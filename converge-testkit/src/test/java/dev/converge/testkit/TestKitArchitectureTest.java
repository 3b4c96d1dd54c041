package dev.converge.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * What a user's tests compile against drives the engine through its public types only: the test
 * kit ships nothing that reaches an {@code internal} package (the engine's own contract suites,
 * which do, are this module's tests, not its jar).
 */
class TestKitArchitectureTest {
    private static final JavaClasses KIT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.converge.testkit");

    @Test
    void theKitUsesOnlyTheEnginesPublicTypes() {
        noClasses().that().resideInAPackage("dev.converge.testkit..")
                .should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("a user's tests would break on a change the engine is free to make")
                .check(KIT);
    }
}
