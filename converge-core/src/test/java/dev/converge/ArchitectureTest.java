package dev.converge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Pins the public surface and the layering: a user compiles against the API packages only, so no public or protected
 * signature of a public type there may mention an {@code internal} type (else the internal type is
 * API in all but name, and moving it breaks users).
 */
class ArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.converge");

    @Test
    void noPublicSignatureMentionsAnInternalType() {
        classes().that(areApi())
                .should(notMentionInternalTypesInTheirPublicSignatures())
                .because("internal packages carry no compatibility promise; what a user can call must not need them")
                .check(CORE);
    }

    @Test
    void thePackagesAreFreeOfCycles() {
        slices().matching("dev.converge.(*)..").should().beFreeOfCycles()
                .because("the engine reads top-down (handler above ledger and tokens, above flows, chains and"
                        + " batches, above the queue, above the store): a package that reaches one above it"
                        + " cannot be understood, tested or changed on its own")
                .check(CORE);
    }

    /**
     * The engine is assembled from the top: {@code Converge} (and its builder) builds what is below
     * it and hands it what it needs; nothing below reaches back up to it, statically or otherwise.
     */
    @Test
    void nothingBelowTheEngineImportsIt() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses().that().resideOutsideOfPackage("dev.converge")
                .should().dependOnClassesThat().belongToAnyOf(Converge.class)
                .because("a class that calls back up into the engine it is part of cannot be built or tested without"
                        + " all of it, and ties the assembly into a loop")
                .check(CORE);
    }

    /**
     * No new loop of files: each top-level class (with its nested classes) is a slice, and no two
     * slices may come to depend on each other, directly or around a loop, whatever package they are
     * in. The loops there are today (read from the bytecode, same-package references included) are
     * recorded in {@code src/test/resources/archunit_store} and leave it as they are broken; a new
     * one fails the build.
     */
    @Test
    void noNewLoopOfFiles() {
        com.tngtech.archunit.library.freeze.FreezingArchRule.freeze(slices().assignedFrom(new com.tngtech.archunit.library.dependencies.SliceAssignment() {
            @Override
            public com.tngtech.archunit.library.dependencies.SliceIdentifier getIdentifierOf(JavaClass c) {
                String name = c.getName();
                int nested = name.indexOf('$');
                return com.tngtech.archunit.library.dependencies.SliceIdentifier.of(
                        nested < 0 ? name : name.substring(0, nested));
            }

            @Override
            public String getDescription() {
                return "top-level classes";
            }
        }).should().beFreeOfCycles()
                .because("a loop of files is read, tested and changed only as a whole"))
                .check(CORE);
    }

    @Test
    void theServicesTheEngineHandsOutHaveNoPublicConstructor() {
        classes().that().haveFullyQualifiedName("dev.converge.flow.Flows")
                .or().haveFullyQualifiedName("dev.converge.batch.Batches")
                .or().haveFullyQualifiedName("dev.converge.chain.Chains")
                .or().haveFullyQualifiedName("dev.converge.ledger.Ledger")
                .or().haveFullyQualifiedName("dev.converge.token.Tokens")
                .or().haveFullyQualifiedName("dev.converge.claim.Claims")
                .or().haveFullyQualifiedName("dev.converge.recurring.RecurringJobs")
                .or().haveFullyQualifiedName("dev.converge.retention.Retention")
                .should(haveNoPublicOrProtectedConstructor())
                .because("they are wired by the engine and reached through Converge or a step's JobContext")
                .check(CORE);
    }

    /** A public type of a non-internal package, and every type enclosing it public too. */
    private static DescribedPredicate<JavaClass> areApi() {
        return DescribedPredicate.describe("are public types of an API package", ArchitectureTest::isApi);
    }

    private static boolean isApi(JavaClass c) {
        if (isInternal(c) || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
            return false;
        }
        return c.getEnclosingClass().map(ArchitectureTest::isApi).orElse(true);
    }

    private static boolean isInternal(JavaClass c) {
        return c.getPackageName().contains(".internal");
    }

    private static ArchCondition<JavaClass> haveNoPublicOrProtectedConstructor() {
        return new ArchCondition<>("have no public or protected constructor") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                c.getConstructors().stream().filter(ArchitectureTest::isVisible).forEach(k -> events.add(
                        SimpleConditionEvent.violated(c, k.getFullName() + " is " + k.getModifiers())));
            }
        };
    }

    private static ArchCondition<JavaClass> notMentionInternalTypesInTheirPublicSignatures() {
        return new ArchCondition<>("not mention internal types in public or protected signatures") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                List<JavaType> supertypes = new ArrayList<>(c.getInterfaces());
                c.getSuperclass().ifPresent(supertypes::add);
                report(c, "the type " + c.getName() + " extends or implements", supertypes, events);
                for (JavaField f : c.getFields()) {
                    if (isVisible(f)) {
                        report(c, "field " + f.getFullName(), List.of(f.getType()), events);
                    }
                }
                List<JavaCodeUnit> units = new ArrayList<>(c.getMethods());
                units.addAll(c.getConstructors());
                for (JavaCodeUnit u : units) {
                    if (!isVisible(u)) {
                        continue;
                    }
                    List<JavaType> types = new ArrayList<>(u.getParameterTypes());
                    types.add(u.getReturnType());
                    types.addAll(u.getThrowsClause().getTypes());
                    report(c, u.getFullName(), types, events);
                }
            }
        };
    }

    private static boolean isVisible(JavaMember m) {
        Set<JavaModifier> mods = m.getModifiers();
        return !mods.contains(JavaModifier.SYNTHETIC) && !mods.contains(JavaModifier.BRIDGE)
                && (mods.contains(JavaModifier.PUBLIC) || mods.contains(JavaModifier.PROTECTED));
    }

    private static void report(JavaClass owner, String where, List<? extends JavaType> types, ConditionEvents events) {
        Set<String> internal = new LinkedHashSet<>();
        for (JavaType t : types) {
            for (JavaClass raw : t.getAllInvolvedRawTypes()) {
                if (isInternal(raw)) {
                    internal.add(raw.getName());
                }
            }
        }
        if (!internal.isEmpty()) {
            events.add(SimpleConditionEvent.violated(owner, where + " mentions " + internal));
        }
    }
}
