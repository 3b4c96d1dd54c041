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
     * No loop of files: each top-level class (with its nested classes) is a file, and no files may
     * reach each other around a loop (a strongly connected part of the bytecode's dependency graph,
     * same-package references included). A file that can only be read, tested and changed together
     * with others is one file too many.
     */
    @Test
    void noLoopOfFiles() {
        java.util.Map<String, Set<String>> edges = new java.util.TreeMap<>();
        for (JavaClass c : CORE) {
            if (!c.getPackageName().startsWith("dev.converge")) {
                continue;
            }
            Set<String> out = edges.computeIfAbsent(file(c.getName()), k -> new java.util.TreeSet<>());
            c.getDirectDependenciesFromSelf().forEach(d -> {
                String target = file(d.getTargetClass().getBaseComponentType().getName());
                if (target.startsWith("dev.converge.") && !target.equals(file(c.getName()))) {
                    out.add(target);
                }
            });
        }
        org.assertj.core.api.Assertions.assertThat(StronglyConnected.components(edges))
                .as("loops of files in the engine (break them: pass what a part needs down to it instead of"
                        + " the whole that builds it)")
                .isEmpty();
    }

    private static String file(String className) {
        int nested = className.indexOf('$');
        return nested < 0 ? className : className.substring(0, nested);
    }

    /** Tarjan's strongly connected components, those of more than one file, each sorted. */
    static final class StronglyConnected {
        private final java.util.Map<String, Set<String>> edges;
        private final java.util.Map<String, Integer> index = new java.util.HashMap<>();
        private final java.util.Map<String, Integer> low = new java.util.HashMap<>();
        private final java.util.ArrayDeque<String> stack = new java.util.ArrayDeque<>();
        private final Set<String> onStack = new java.util.HashSet<>();
        private final List<Set<String>> found = new ArrayList<>();

        private StronglyConnected(java.util.Map<String, Set<String>> edges) {
            this.edges = edges;
        }

        static List<Set<String>> components(java.util.Map<String, Set<String>> edges) {
            StronglyConnected s = new StronglyConnected(edges);
            for (String v : edges.keySet()) {
                if (!s.index.containsKey(v)) {
                    s.visit(v);
                }
            }
            return s.found;
        }

        private void visit(String v) {
            index.put(v, index.size());
            low.put(v, index.get(v));
            stack.push(v);
            onStack.add(v);
            for (String w : edges.getOrDefault(v, Set.of())) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                Set<String> component = new java.util.TreeSet<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    component.add(w);
                } while (!w.equals(v));
                if (component.size() > 1) {
                    found.add(component);
                }
            }
        }
    }

    @Test
    void theStronglyConnectedCheckFindsALoopAndNothingElse() {
        java.util.Map<String, Set<String>> g = new java.util.TreeMap<>();
        g.put("a", Set.of("b"));
        g.put("b", Set.of("c"));
        g.put("c", Set.of("a", "d"));
        g.put("d", Set.of());
        g.put("e", Set.of("d"));
        org.assertj.core.api.Assertions.assertThat(StronglyConnected.components(g))
                .containsExactly(new java.util.TreeSet<>(List.of("a", "b", "c")));
    }

    @Test
    void theServicesTheEngineHandsOutAreInterfaces() {
        classes().that().haveFullyQualifiedName("dev.converge.flow.Flows")
                .or().haveFullyQualifiedName("dev.converge.flow.StepFlows")
                .or().haveFullyQualifiedName("dev.converge.ledger.StepLedger")
                .or().haveFullyQualifiedName("dev.converge.token.StepTokens")
                .or().haveFullyQualifiedName("dev.converge.batch.Batches")
                .or().haveFullyQualifiedName("dev.converge.chain.Chains")
                .or().haveFullyQualifiedName("dev.converge.ledger.Ledger")
                .or().haveFullyQualifiedName("dev.converge.token.Tokens")
                .or().haveFullyQualifiedName("dev.converge.claim.Claims")
                .or().haveFullyQualifiedName("dev.converge.recurring.RecurringJobs")
                .or().haveFullyQualifiedName("dev.converge.retention.Retention")
                .should().beInterfaces()
                .because("the engine builds their implementations by constructor, in its internal packages, and hands"
                        + " them out through Converge or a step's JobContext; a test may fake one")
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
