package dev.converge.leafsim;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.leafsim.fault.FaultPlan;
import java.time.Clock;
import java.util.Random;

/** What every simulated leaf shares within one {@link LeafSim}: config, faults, JSON, clock, seed. */
record LeafSimParts(LeafSimConfig config, FaultPlan faults, ServerClosing closing, ObjectMapper json, Clock clock,
        Random ids) {
}
