package dev.converge.leafsim;

import io.javalin.config.RoutesConfig;

/** Registers one leaf's routes under its path prefix, each wrapped in auth and faults. */
final class LeafRoutes {
    private final RoutesConfig routes;
    private final String leaf;
    private final LeafSimParts parts;
    private final BearerAuth auth;

    LeafRoutes(RoutesConfig routes, String leaf, LeafSimParts parts) {
        this.routes = routes;
        this.leaf = leaf;
        this.parts = parts;
        this.auth = new BearerAuth(parts.config().token(leaf));
    }

    void get(String path, String route, LeafAction action) {
        routes.get(prefixed(path), handler(route, action));
    }

    void post(String path, String route, LeafAction action) {
        routes.post(prefixed(path), handler(route, action));
    }

    void delete(String path, String route, LeafAction action) {
        routes.delete(prefixed(path), handler(route, action));
    }

    private FaultingRoute handler(String route, LeafAction action) {
        return new FaultingRoute(leaf, route, parts, auth, action);
    }

    private String prefixed(String path) {
        return "/" + leaf + path;
    }
}
