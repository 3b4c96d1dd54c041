package dev.converge.dashboard;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The dashboard, its tests included, reads the engine through its public types and its tables
 * only: a change inside the engine never breaks it.
 */
class DashboardArchitectureTest {
    private static final JavaClasses MODULE = new ClassFileImporter()
            .importPaths(Path.of("target/classes"), Path.of("target/test-classes"));

    @Test
    void nothingHereReachesAnEngineInternal() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("only the engine itself may use what it is free to change")
                .check(MODULE);
    }
}
