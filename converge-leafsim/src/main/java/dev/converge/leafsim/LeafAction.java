package dev.converge.leafsim;

import io.javalin.http.Context;

/** What one route of a simulated leaf does when no fault stops it. */
@FunctionalInterface
interface LeafAction {
    SimResponse run(Context ctx) throws Exception;
}
