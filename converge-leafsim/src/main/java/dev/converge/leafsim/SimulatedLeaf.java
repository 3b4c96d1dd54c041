package dev.converge.leafsim;

import dev.converge.leafsim.inventory.Inventory;

/** A simulated leaf service: its routes and the inventory that is its ground truth. */
interface SimulatedLeaf {
    String name();

    Inventory inventory();

    void register(LeafRoutes routes);
}
