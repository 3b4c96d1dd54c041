package dev.converge.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.batch.Batch;
import dev.converge.flow.Flow;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A flow's steps and a chain's links read back as typed steps, in the order they were given. */
class StepTest {
    private static final JobType<String> TYPE = JobType.of("step.test", String.class);

    @Test
    void aFlowsStepsAreTypedAndInOrder() {
        Job<String> first = Job.of(TYPE, "a");
        Batch side = Batch.named("side").add(Job.of(TYPE, "b")).add(Job.of(TYPE, "c"));
        Job<String> last = Job.of(TYPE, "d");

        List<Step> steps = Flow.of("test", "subject-1").then(first).then(side).then(last).steps();

        assertThat(steps).containsExactly(new Step.OneJob(first), new Step.AllOf(side), new Step.OneJob(last));
        assertThat(steps.stream().map(StepTest::describe)).containsExactly("job a", "batch side of 2", "job d");
        assertThatThrownBy(() -> steps.add(new Step.OneJob(first))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aChainsLinksAreTypedAndInOrder() {
        Batch side = Batch.named("side").add(Job.of(TYPE, "b"));
        List<Step> links = Chain.named("c").then(side).then(Job.of(TYPE, "e")).links();

        assertThat(links.stream().map(StepTest::describe)).containsExactly("batch side of 1", "job e");
    }

    @Test
    void aStepIsNeverEmpty() {
        assertThatThrownBy(() -> new Step.OneJob(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Flow.of("test", "s").then((Batch) null)).isInstanceOf(NullPointerException.class);
    }

    /** What a user writes over a sealed step: both cases, nothing else to handle. */
    private static String describe(Step s) {
        if (s instanceof Step.OneJob one) {
            return "job " + one.job().payload();
        }
        Step.AllOf all = (Step.AllOf) s;
        return "batch " + all.batch().name() + " of " + all.batch().jobs().size();
    }
}
