package dev.converge.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The starter and its tests use the engine through its public types, like any application. */
class StarterArchitectureTest {
    private static final JavaClasses MODULE = new ClassFileImporter()
            .importPaths(Path.of("target/classes"), Path.of("target/test-classes"));

    @Test
    void nothingHereReachesAnEngineInternal() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("only the engine's own tests, in converge-core, may look inside it")
                .check(MODULE);
    }
}
