package dev.converge.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.testkit.crash.CrashPointExplorer;
import dev.converge.testkit.crash.ExplorationReport;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The explorer over a three-step flow converges at every crash point; over a naive step it reports duplicates. */
class CrashExplorationTest {

    @Test
    void everyCrashPointOfTheFlowIsReachedAndEveryRunConverges() throws Exception {
        ExplorationReport report = CrashPointExplorer.forScenario(new ThreeStepFlow(false)).everyOccurrence(true, 3)
                .explore();
        System.out.println("safe flow:\n" + report);
        assertThat(report.crashesPerPoint().keySet()).as("points crashed at")
                .containsAll(EnumSet.of(CrashPoint.AFTER_CLAIM, CrashPoint.AFTER_LEAF_ANSWER,
                        CrashPoint.AFTER_LEDGER_WRITE, CrashPoint.INSIDE_TEARDOWN, CrashPoint.AFTER_TOKEN_USE,
                        CrashPoint.BEFORE_COMPLETE));
        assertThat(report.allConverged()).as(report.toString()).isTrue();
    }

    @Test
    void aNaiveStepIsCaughtCreatingDuplicates() throws Exception {
        ExplorationReport report = CrashPointExplorer.forScenario(new ThreeStepFlow(true))
                .points(CrashPoint.AFTER_LEAF_ANSWER, CrashPoint.BEFORE_COMPLETE).everyOccurrence(true, 2).explore();
        System.out.println("naive flow:\n" + report);
        assertThat(report.allConverged()).as("a checker that cannot fail proves nothing").isFalse();
        assertThat(report.violations()).anyMatch(v -> v.contains("duplicated"));
        assertThat(report.violations()).anyMatch(v -> v.contains("orphans"));
    }
}
