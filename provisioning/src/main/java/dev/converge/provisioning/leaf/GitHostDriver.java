package dev.converge.provisioning.leaf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.converge.ledger.LeafResource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Repositories on a GitHub-shaped git host. Natural key: the repository name in the configured
 * org; tag: the description; leaf id: {@code org/name} (what a delete addresses). A 422 whose
 * errors say {@code already_exists} is {@code ResourceExists}; any other 422 is a rejection.
 */
public final class GitHostDriver implements LeafDriver {
    public static final String LEAF = "githost";
    private static final int PAGE_SIZE = 100;
    private static final int MAX_PAGES = 1_000;
    /** The REST API version this driver is written against (GitHub's {@code X-GitHub-Api-Version}). */
    public static final String API_VERSION = "2022-11-28";
    static final Map<String, String> HEADERS = Map.of("Accept", "application/vnd.github+json",
            "X-GitHub-Api-Version", API_VERSION);

    private final GitHostConfig config;
    private final LeafHttp http;

    public GitHostDriver(GitHostConfig config) {
        this.config = config;
        this.http = new LeafHttp(LEAF, config.http(), HEADERS);
    }

    @Override
    public String leaf() {
        return LEAF;
    }

    @Override
    public LeafResource create(String name, String tag, String idempotencyKey) {
        requireName(name);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("description", tag);
        body.put("private", config.privateRepos());
        LeafReply reply = http.post("/orgs/" + config.org() + "/repos", body, Map.of());
        if (!reply.isSuccess()) {
            throw reply.changeFailure(name, reply.status() == 409 || saysAlreadyExists(reply));
        }
        return reply.json().flatMap(this::repository).filter(repo -> isOurs(repo, name))
                .orElseThrow(() -> reply.malformedChange("expected repository " + config.org() + "/" + name + " with id"));
    }

    @Override
    public Optional<LeafResource> find(String name) {
        requireName(name);
        LeafReply reply = http.get("/repos/" + config.org() + "/" + name, LeafHttp.Effect.READS);
        if (reply.status() == 404) {
            return Optional.empty();
        }
        if (!reply.isSuccess()) {
            throw reply.readFailure();
        }
        return Optional.of(reply.json().flatMap(this::repository).filter(repo -> isOurs(repo, name))
                .orElseThrow(() -> reply.malformedRead("expected repository " + config.org() + "/" + name)));
    }

    /** @param fullName {@code org/name} as returned in {@link LeafResource#leafId()} */
    @Override
    public void delete(String fullName) {
        String[] parts = fullName == null ? new String[0] : fullName.split("/", -1);
        if (parts.length != 2 || !GitHostConfig.SEGMENT.matcher(parts[0]).matches()) {
            throw new IllegalArgumentException("a git host leaf id is org/name: " + fullName);
        }
        if (!parts[0].equals(config.org())) {
            // a leaf id from anywhere but our org is never ours to delete, whatever a ledger row says
            throw new IllegalArgumentException("deletes only repositories of " + config.org() + ": " + fullName);
        }
        requireName(parts[1]);
        LeafReply reply = http.delete("/repos/" + fullName);
        if (!reply.isSuccess() && reply.status() != 404) {
            throw reply.readFailure();
        }
    }

    /** Every repository of the org, page by page as the {@code Link: <...>; rel="next"} header leads. */
    @Override
    public List<LeafResource> list() {
        List<LeafResource> all = new ArrayList<>();
        LeafReply reply = http.get("/orgs/" + config.org() + "/repos?per_page=" + PAGE_SIZE, LeafHttp.Effect.READS);
        for (int page = 1; page <= MAX_PAGES; page++) {
            if (!reply.isSuccess()) {
                throw reply.readFailure();
            }
            LeafReply answered = reply;
            JsonNode repos = reply.json().filter(JsonNode::isArray)
                    .orElseThrow(() -> answered.malformedRead("expected a list of repositories"));
            for (JsonNode node : repos) {
                LeafResource repo = repository(node).orElseThrow(() -> answered.malformedRead("a repository without id "
                        + "or name"));
                if (!isOurs(repo, repo.naturalKey())) {
                    throw reply.malformedRead("a repository outside " + config.org() + " in its listing");
                }
                all.add(repo);
            }
            Optional<String> next = LinkHeader.target(reply.headers(), "next");
            if (next.isEmpty()) {
                return all;
            }
            reply = http.follow(next.get());
        }
        throw new IllegalStateException("more than " + MAX_PAGES + " pages of repositories in " + config.org());
    }

    private Optional<LeafResource> repository(JsonNode node) {
        Optional<String> id = JsonFields.id(node, "id");
        Optional<String> name = JsonFields.text(node, "name");
        Optional<String> fullName = JsonFields.text(node, "full_name");
        if (id.isEmpty() || name.isEmpty() || fullName.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", Long.parseLong(id.get()));
        data.put("full_name", fullName.get());
        JsonFields.text(node, "html_url").ifPresent(url -> data.put("html_url", url));
        JsonFields.text(node, "clone_url").ifPresent(url -> data.put("clone_url", url));
        return Optional.of(new LeafResource(fullName.get(), name.get(), JsonFields.optionalText(node, "description"),
                data));
    }

    /** A reply names our repository only if its name and its full name, org/name, are exactly ours. */
    private boolean isOurs(LeafResource repo, String name) {
        return repo.naturalKey().equals(name) && repo.leafId().equals(config.org() + "/" + name);
    }

    private static boolean saysAlreadyExists(LeafReply reply) {
        if (reply.status() != 422) {
            return false;
        }
        JsonNode errors = reply.json().map(node -> node.path("errors")).orElse(null);
        if (errors == null || !errors.isArray()) {
            return false;
        }
        for (JsonNode error : errors) {
            if ("already_exists".equals(error.path("code").asText())
                    || error.path("message").asText().contains("already exists")) {
                return true;
            }
        }
        return false;
    }

    private static void requireName(String name) {
        if (name == null || !GitHostConfig.SEGMENT.matcher(name).matches()) {
            throw new IllegalArgumentException("a repository name must match " + GitHostConfig.SEGMENT + ": " + name);
        }
    }
}
