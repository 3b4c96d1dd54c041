package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.approval.Approval;
import dev.converge.provisioning.approval.ApprovalAction;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.approval.Consumption;
import dev.converge.store.Store;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A call runs once and reports: no retry, errors as results, and a failed approved action gives its approval back. */
class ToolRunnerTest {
    private static final Optional<Tenant> TENANT = Optional.of(new Tenant(1, "t", Instant.EPOCH));
    private Store store;
    private Approvals approvals;
    private ToolRunner runner;

    @BeforeEach
    void open() {
        store = TestStores.h2(true, EngineClock.database());
        Provisioning.migrate(store);
        approvals = new Approvals(store);
        runner = new ToolRunner(approvals, (tenant, ref) -> Optional.of(ref.legacyId()));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static SiteTool tool(RepetitionSafety safety, SiteTool.Handler handler) {
        SiteTool.ApprovalGate gate = ToolSafety.freelyCallable(safety) ? null
                : new SiteTool.ApprovalGate(ApprovalAction.DELETE_SITE, id -> "ask a person about site " + id);
        return new SiteTool("t", "T", "A tool.", safety, false, new ToolArgs(List.of(
                SiteTool.siteIdArg(), ToolArg.string(SiteTool.APPROVAL_TOKEN, "approval"))),
                gate, handler);
    }

    @Test
    void aFailingCallRunsOnceAndSaysWhatToDoByItsSafety() {
        AtomicInteger runs = new AtomicInteger();
        SiteTool t = tool(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, call -> {
            runs.incrementAndGet();
            throw new IllegalStateException("leaf down");
        });
        ToolResult r = runner.run(t, TENANT, Map.of("site_id", 3));
        assertThat(runs).hasValue(1);
        assertThat(r.error()).isTrue();
        assertThat(r.structured()).containsEntry("error", "internal_error")
                .containsEntry("what_to_do", ToolSafety.ifInDoubt(RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT));
        assertThat(r.toMcp().isError()).isTrue();
    }

    @Test
    void withoutATenantOrWithInvalidArgumentsNothingRuns() {
        AtomicInteger runs = new AtomicInteger();
        SiteTool t = tool(RepetitionSafety.READ_ONLY, call -> {
            runs.incrementAndGet();
            return ToolResult.ok(Map.of());
        });
        assertThat(runner.run(t, Optional.empty(), Map.of("site_id", 3)).structured()).containsEntry("error", "unauthenticated");
        assertThat(runner.run(t, TENANT, Map.of("site_id", "3")).structured()).containsEntry("field", "site_id");
        assertThat(runs).hasValue(0);
    }

    @Test
    void anApprovedActionThatFailsGivesTheApprovalBackAndOneThatSucceedsUsesIt() {
        Approval a = approvals.mint(1, 3, ApprovalAction.DELETE_SITE);
        Map<String, Object> args = Map.of("site_id", 3, "approval_token", a.token());
        AtomicInteger runs = new AtomicInteger();

        assertThat(runner.run(tool(RepetitionSafety.UNSAFE, call -> ToolResult.ok(Map.of())), TENANT,
                Map.of("site_id", 3)).structured()).containsEntry("error", "approval_required")
                .containsEntry("what_to_do", "ask a person about site 3");

        ToolResult failed = runner.run(tool(RepetitionSafety.UNSAFE, call -> {
            runs.incrementAndGet();
            throw new ToolRefusal("site_busy", "busy", "later");
        }), TENANT, args);
        assertThat(failed.structured()).containsEntry("error", "site_busy");

        SiteTool works = tool(RepetitionSafety.UNSAFE, call -> {
            runs.incrementAndGet();
            return ToolResult.ok(Map.of("done", true));
        });
        assertThat(runner.run(works, TENANT, args).structured()).containsEntry("done", true);
        assertThat(runner.run(works, TENANT, args).structured()).containsEntry("error", "approval_used");
        assertThat(runs).hasValue(2);
        assertThat(approvals.consume(1, 3, ApprovalAction.DELETE_SITE, a.token()))
                .isEqualTo(new Consumption.Refused(Consumption.Reason.USED));
    }
}
