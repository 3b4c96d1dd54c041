package dev.converge.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command a person runs at their desk: it calls the server's HTTP API with their tenant's
 * approver token, read from the environment (never a flag, so it does not show in process listings
 * or shell history). It opens no database: the desk holds that token and nothing more.
 */
abstract class TenantDeskCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--url", defaultValue = "${env:CONVERGE_URL:-http://127.0.0.1:8080}",
            description = "Base URL of the Converge server (default: ${DEFAULT-VALUE}).")
    String url;

    @Option(names = {"--token-env", "--tenant-token-env"}, description = "Environment variable holding the token the "
            + "command needs (default: CONVERGE_OPERATOR_TOKEN for the operator's commands, CONVERGE_APPROVER_TOKEN for "
            + "a tenant's approver's).")
    String tokenEnv;

    /** Whose token a command needs, and where it is read from unless {@code --token-env} says otherwise. */
    enum Needs {
        APPROVER("CONVERGE_APPROVER_TOKEN", "your tenant's approver token"),
        OPERATOR("CONVERGE_OPERATOR_TOKEN", "the operator token");

        final String env;
        final String what;

        Needs(String env, String what) {
            this.env = env;
            this.what = what;
        }
    }

    /** The token this command needs: a tenant's approver's unless it says otherwise. */
    Needs needs() {
        return Needs.APPROVER;
    }

    @Spec
    CommandSpec spec;

    private final UnaryOperator<String> env;

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    TenantDeskCommand(UnaryOperator<String> env) {
        this.env = env;
    }

    /** The server's answer: status and JSON body. */
    record Answer(int status, JsonNode body) {
        String detail() {
            return body.path("detail").asText("HTTP " + status);
        }
    }

    /** Does the command's work through {@code api}; returns the exit code. */
    abstract int act(Api api, PrintWriter out, PrintWriter err) throws IOException, InterruptedException;

    /** Posts to the server with the approver token. */
    final class Api {
        private final URI base;
        private final String token;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

        Api(URI base, String token) {
            this.base = base;
            this.token = token;
        }

        Answer post(String path, String jsonBody) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + token).header("Accept", "application/json");
            b = jsonBody == null ? b.POST(HttpRequest.BodyPublishers.noBody())
                    : b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(jsonBody));
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body;
            try {
                body = r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
            } catch (IOException notJson) {
                body = JSON.createObjectNode();
            }
            return new Answer(r.statusCode(), body);
        }
    }

    @Override
    public final Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            String variable = tokenEnv != null ? tokenEnv : needs().env;
            String token = env.apply(variable);
            if (token == null || token.isBlank()) {
                err.println("set " + variable + " to " + needs().what + " (it is read from the environment so it "
                        + "does not show in process listings or shell history)");
                return 2;
            }
            URI base = ServerUrl.parse(url);
            return act(new Api(URI.create(base.toString().endsWith("/") ? base.toString() : base + "/"), token.strip()),
                    out, err);
        } catch (java.net.ConnectException e) {
            err.println("cannot reach the server at " + url + ": is it running?");
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The exit code and message for an answer that is not a success: 2 for the token, 1 otherwise. */
    static int refused(Answer a, PrintWriter err) {
        if (a.status() == 401) {
            err.println("the server does not accept this token (unknown, expired or revoked)");
            return 2;
        }
        if (a.status() == 403) {
            err.println(a.detail() + " Ask whoever runs the service for an approver token "
                    + "(converge tenant token create --scope approver).");
            return 2;
        }
        err.println(a.detail());
        return 1;
    }
}
