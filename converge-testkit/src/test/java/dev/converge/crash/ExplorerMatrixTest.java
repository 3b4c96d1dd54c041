package dev.converge.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.crash.MatrixCase.FaultKind;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;

/**
 * The crash-point explorer's matrix: generated flow shapes (every combination of declared
 * safety, uniqueness and lookup for the resource, token pools with and without a subject, a mail
 * leaf that can or cannot say whether a send happened, compensation registered by a plain step,
 * no failure, a failing last step or a failing sibling) under generated faults (a crash at the
 * k-th time any named point is reached, or a second delivery racing a paused first one there).
 *
 * <p>Safety: nothing is created twice, no resource is left that the ledger does not own or a
 * failed flow left behind. Liveness: every flow ends (succeeded, failed, or needs_attention with
 * a reason, and the latter only where the shape leaves no other honest answer) within a bound
 * after the fault, and every ledger entry and token is settled.
 *
 * <p>A failure is shrunk to a minimal case, and its key replays it:
 * {@code ./mvnw -pl converge-testkit -am test -Dtest=ExplorerMatrixTest -Dconverge.matrix.case='KEY'}.
 */
class ExplorerMatrixTest {
    private static final String REPLAY = "converge.matrix.case";

    @Property(tries = 20, shrinking = ShrinkingMode.BOUNDED)
    void everyShapeConvergesWhateverTheFault(@ForAll("cases") MatrixCase c) throws Exception {
        MatrixScenario.Outcome out = new MatrixScenario(c, false).run();
        Statistics.label("fault").collect(c.fault() == FaultKind.NONE ? "none" : c.fault() + (out.faultFired() ? " fired" : " not reached"));
        Statistics.label("end").collect(out.end());
        assertThat(out.violations()).as(replayHint(c)).isEmpty();
    }

    /** Replays one case given by its key; without the system property it runs the baseline of every resource shape. */
    @Example
    void replayOrBaseline() throws Exception {
        String key = System.getProperty(REPLAY);
        List<MatrixCase> cases = key != null && !key.isBlank() ? List.of(MatrixCase.parse(key))
                : Arrays.stream(MatrixCase.Resource.values()).map(r -> new MatrixCase(r, false, true, true,
                        MatrixCase.Failure.LAST_STEP, FaultKind.NONE, null, 0)).toList();
        for (MatrixCase c : cases) {
            MatrixScenario.Outcome out = new MatrixScenario(c, false).run();
            assertThat(out.violations()).as(replayHint(c)).isEmpty();
        }
    }

    /** The checker can fail: a step that creates straight at the leaf, unrecorded, is caught duplicating. */
    @Example
    void aNaiveStepIsCaught() throws Exception {
        MatrixCase c = new MatrixCase(MatrixCase.Resource.KEY_LOOKUP, true, true, false, MatrixCase.Failure.NONE,
                FaultKind.CRASH, CrashPoint.BEFORE_COMPLETE, 1);
        MatrixScenario.Outcome out = new MatrixScenario(c, true).run();
        assertThat(out.faultFired()).isTrue();
        assertThat(out.violations()).as("a checker that cannot fail proves nothing").anyMatch(v -> v.startsWith("duplicated"));
    }

    @Provide
    Arbitrary<MatrixCase> cases() {
        Arbitrary<MatrixCase.Resource> resource = Arbitraries.of(MatrixCase.Resource.class);
        Arbitrary<Boolean> bool = Arbitraries.of(true, false);
        Arbitrary<MatrixCase.Failure> failure = Arbitraries.of(MatrixCase.Failure.class);
        Arbitrary<FaultKind> fault = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(1, FaultKind.NONE), net.jqwik.api.Tuple.of(6, FaultKind.CRASH),
                net.jqwik.api.Tuple.of(3, FaultKind.RACE));
        Arbitrary<CrashPoint> point = Arbitraries.of(CrashPoint.class);
        Arbitrary<Integer> occurrence = Arbitraries.integers().between(1, 2);
        return Combinators.combine(resource, bool, bool, bool, failure, fault, point, occurrence)
                .as(MatrixCase::new);
    }

    private static String replayHint(MatrixCase c) {
        return "case " + c.key() + "\n  replay: ./mvnw -pl converge-testkit -am test -Dtest=ExplorerMatrixTest -D"
                + REPLAY + "='" + c.key() + "'";
    }
}
