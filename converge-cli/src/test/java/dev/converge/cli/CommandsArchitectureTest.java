package dev.converge.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The commands and their tests use the engine through its public types, like any application. */
class CommandsArchitectureTest {
    private static final JavaClasses MODULE = new ClassFileImporter()
            .importPaths(Path.of("target/classes"), Path.of("target/test-classes"));

    @Test
    void nothingHereReachesAnEngineInternal() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("only the engine's own tests, in converge-core, may look inside it")
                .check(MODULE);
    }
}
