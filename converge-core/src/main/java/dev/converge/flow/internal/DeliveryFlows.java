package dev.converge.flow.internal;

import dev.converge.flow.Flow;
import dev.converge.flow.FlowRun;
import dev.converge.flow.FlowView;
import dev.converge.flow.StepFlows;
import dev.converge.queue.Delivery;
import dev.converge.queue.Job;
import java.util.Optional;

/** The engine's flows bound to one delivery. */
public record DeliveryFlows(FlowService flows, Delivery delivery) implements StepFlows {

    @Override
    public void compensateWith(Job<?> compensation) {
        flows.compensateWith(delivery, compensation);
    }

    @Override
    public FlowRun start(Flow flow) {
        return flows.start(flow);
    }

    @Override
    public boolean fail(long flowId, String reason) {
        return flows.fail(flowId, reason);
    }

    @Override
    public Optional<FlowView> get(long flowId) {
        return flows.get(flowId);
    }

    @Override
    public Optional<FlowView> find(String kind, String subject) {
        return flows.find(kind, subject);
    }
}
