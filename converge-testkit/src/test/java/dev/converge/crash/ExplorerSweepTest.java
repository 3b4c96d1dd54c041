package dev.converge.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.crash.MatrixCase.Failure;
import dev.converge.crash.MatrixCase.FaultKind;
import dev.converge.crash.MatrixCase.Resource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The matrix's fixed sweep, run in full on every build: every resource shape crashed and raced at
 * every ledger point and inside its teardown; every token pool (with and without a subject, with
 * a mail leaf that can or cannot tell) crashed and raced after its use; a by-key create without lookup
 * torn down by a failing sibling before its key could be resent; compensation registered by a plain
 * step under a failing last step and a failing sibling. {@link ExplorerMatrixTest}
 * generates the combinations in between. Each case's name is its replay key.
 */
class ExplorerSweepTest {

    static List<String> cases() {
        List<MatrixCase> out = new ArrayList<>();
        for (Resource r : Resource.values()) {
            for (FaultKind kind : List.of(FaultKind.CRASH, FaultKind.RACE)) {
                for (CrashPoint p : List.of(CrashPoint.AFTER_CLAIM, CrashPoint.AFTER_LEAF_ANSWER,
                        CrashPoint.AFTER_LEDGER_WRITE)) {
                    out.add(new MatrixCase(r, true, true, false, Failure.NONE, kind, p, 1));
                }
                out.add(new MatrixCase(r, true, true, false, Failure.LAST_STEP, kind, CrashPoint.INSIDE_TEARDOWN, 1));
            }
        }
        // a by-key create without lookup torn down (its sibling failed) before a redelivery could resend
        // its key: teardown resends it; the second occurrence of the answer is the resent create's own
        for (FaultKind kind : List.of(FaultKind.CRASH, FaultKind.RACE)) {
            for (CrashPoint p : List.of(CrashPoint.AFTER_CLAIM, CrashPoint.AFTER_LEAF_ANSWER)) {
                out.add(new MatrixCase(Resource.KEY_NO_LOOKUP, true, true, false, Failure.SIBLING, kind, p, 1));
            }
        }
        out.add(new MatrixCase(Resource.KEY_NO_LOOKUP, true, true, false, Failure.SIBLING, FaultKind.CRASH,
                CrashPoint.AFTER_LEAF_ANSWER, 2));
        for (boolean bySubject : List.of(true, false)) {
            for (boolean tells : List.of(true, false)) {
                for (FaultKind kind : List.of(FaultKind.CRASH, FaultKind.RACE)) {
                    out.add(new MatrixCase(Resource.CONSTRAINT_LOOKUP, bySubject, tells, false, Failure.NONE, kind,
                            CrashPoint.AFTER_TOKEN_USE, 1));
                }
            }
        }
        for (Failure f : List.of(Failure.LAST_STEP, Failure.SIBLING)) {
            out.add(new MatrixCase(Resource.KEY_LOOKUP, true, true, true, f, FaultKind.NONE, null, 0));
            for (int k = 1; k <= 3; k++) {
                out.add(new MatrixCase(Resource.KEY_LOOKUP, true, true, true, f, FaultKind.CRASH, CrashPoint.BEFORE_COMPLETE, k));
            }
            out.add(new MatrixCase(Resource.KEY_LOOKUP, true, true, true, f, FaultKind.RACE, CrashPoint.BEFORE_COMPLETE, 1));
        }
        return out.stream().map(MatrixCase::key).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void converges(String key) throws Exception {
        MatrixCase c = MatrixCase.parse(key);
        assertThat(c.key()).as("the key replays the same case").isEqualTo(key);
        MatrixScenario.Outcome out = new MatrixScenario(c, false).run();
        assertThat(out.violations()).as("case " + key + " (fault " + (out.faultFired() ? "fired" : "not reached")
                + ")\n  replay: ./mvnw -pl converge-testkit -am test -Dtest=ExplorerMatrixTest -Dconverge.matrix.case='"
                + key + "'").isEmpty();
    }
}
