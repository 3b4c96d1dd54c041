package dev.converge.proof;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The proof is built on the service and the leaf simulator; the commands are built on the proof, never under it. */
class ArchitectureTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.converge");

    @Test
    void theProofKnowsNothingOfTheCommands() {
        noClasses().that().resideInAPackage("dev.converge.proof..")
                .should().dependOnClassesThat().resideInAPackage("dev.converge.cli..")
                .because("the chaos run's children start the proof's own ChaosNode, not the converge command")
                .check(CLASSES);
    }

    @Test
    void noModuleAboveTheEngineUsesItsInternals() {
        noClasses().that().resideInAnyPackage("dev.converge.provisioning..", "dev.converge.dashboard..",
                        "dev.converge.proof..", "dev.converge.leafsim..")
                .should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("internal means the engine may change it without notice; the service, the dashboard and the "
                        + "proof reach their own tables through the public JDBC kit (dev.converge.store.Sql, Params)")
                .check(CLASSES);
    }

    /**
     * The same for the tests: the service's (its test jar is on this class path), the proof's and
     * the leaf simulator's. Only the engine's own tests, in converge-core, may look inside it.
     */
    @Test
    void noTestAboveTheEngineUsesItsInternalsEither() {
        JavaClasses everythingButTheEngine = new ClassFileImporter()
                .withImportOption(location -> !location.contains("converge-core"))
                .importPackages("dev.converge");
        assertThat(everythingButTheEngine.stream().map(c -> c.getName()))
                .as("the service's test fixtures and this module's tests are among what is checked")
                .contains("dev.converge.provisioning.LocalLeaves", ArchitectureTest.class.getName());
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.converge..internal..")
                .because("the engine's white-box tests belong beside the engine, in converge-core")
                .check(everythingButTheEngine);
    }

    @Test
    void thePackagesOfTheProofFormNoCycle() {
        slices().matching("dev.converge.proof.(*)..").should().beFreeOfCycles().check(CLASSES);
    }
}
