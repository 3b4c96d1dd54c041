package dev.converge.provisioning;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Pins who may depend on whom: the service reaches the engine only through its public packages
 * (never its internals: its own tables through the engine's public {@code Sql}/{@code Params}), the HTTP API does not reach
 * into the MCP tools, and nothing of the service depends on the proof, the commands or the leaf simulator.
 */
class ArchitectureTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.converge");

    @Test
    void theServiceUsesOnlyTheEnginesPublicPackages() {
        noClasses().that().resideInAPackage("dev.converge.provisioning..")
                .should().dependOnClassesThat(resideInAPackage("dev.converge..internal.."))
                .because("engine internals may change without notice; the service is a user of the engine, "
                        + "its own tables written with the engine's public JDBC kit (dev.converge.store.Sql)")
                .check(CLASSES);
    }

    @Test
    void theEngineKnowsNothingOfTheService() {
        noClasses().that().resideInAnyPackage("dev.converge.queue..", "dev.converge.store..", "dev.converge.flow..",
                        "dev.converge.ledger..", "dev.converge.batch..", "dev.converge.chain..", "dev.converge.token..",
                        "dev.converge.claim..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.converge.provisioning..", "dev.converge.leafsim..")
                .check(CLASSES);
    }

    @Test
    void theHttpApiDoesNotReachIntoTheAgentTools() {
        noClasses().that().resideInAnyPackage("dev.converge.provisioning.api..", "dev.converge.provisioning.site..",
                        "dev.converge.provisioning.flow..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.converge.provisioning.mcp..")
                .check(CLASSES);
    }

    @Test
    void theServiceKnowsNothingOfWhatProvesItNorOfItsCommandsNorOfTheSimulatedLeaves() {
        noClasses().that().resideInAPackage("dev.converge.provisioning..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.converge.proof..", "dev.converge.cli..",
                        "dev.converge.leafsim..")
                .because("the service ships alone: the demo, chaos, checker and benchmarks (converge-proof), the "
                        + "commands (converge-cli) and the leaf simulator are built on it, never under it")
                .check(CLASSES);
    }

    @Test
    void thePackagesOfTheServiceFormNoCycle() {
        slices().assignedFrom(TOP_LEVEL_PACKAGES).should().beFreeOfCycles()
                .because("a package that needs another which needs it back cannot be read, tested or moved alone")
                .check(CLASSES);
    }

    /**
     * One slice per package directly under {@code dev.converge.provisioning} (with its subpackages),
     * and one for the classes of that package itself: the node's assembly ({@code Provisioning}) must sit
     * above what it assembles, not in a cycle with it, which a pattern like {@code provisioning.(*)..}
     * would not see.
     */
    private static final SliceAssignment TOP_LEVEL_PACKAGES = new SliceAssignment() {
        private static final String ROOT = "dev.converge.provisioning";

        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String pkg = c.getPackageName();
            if (pkg.equals(ROOT)) {
                return SliceIdentifier.of("(the node's assembly)");
            }
            if (!pkg.startsWith(ROOT + ".")) {
                return SliceIdentifier.ignore();
            }
            String rest = pkg.substring(ROOT.length() + 1);
            int dot = rest.indexOf('.');
            return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
        }

        @Override
        public String getDescription() {
            return "the packages of dev.converge.provisioning, its own classes included";
        }
    };
}
