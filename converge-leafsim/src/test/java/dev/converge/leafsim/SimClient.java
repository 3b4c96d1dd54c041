package dev.converge.leafsim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A plain java.net.http client for the contract tests: the same stack our drivers use. */
final class SimClient {
    static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final String baseUrl;
    private final String token;
    private Duration timeout = Duration.ofSeconds(5);

    SimClient(String baseUrl, String token) {
        this.baseUrl = baseUrl;
        this.token = token;
    }

    SimClient withTimeout(Duration value) {
        SimClient copy = new SimClient(baseUrl, token);
        copy.timeout = value;
        return copy;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path).GET().build());
    }

    HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return send(request(path).DELETE().build());
    }

    HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
        return post(path, body, Map.of());
    }

    HttpResponse<String> post(String path, Object body, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder builder = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        headers.forEach(builder::header);
        return send(builder.build());
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout);
        return token == null ? builder : builder.header("Authorization", "Bearer " + token);
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
