package dev.converge.provisioning.mail;

import dev.converge.ledger.LeafRejected;
import dev.converge.provisioning.config.ProvisioningConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Asks a mail server's HTTP listing ({@code converge mailsim}) whether a message carrying a send
 * token arrived. A crash between the SMTP send and the token spend is then resolved by asking the
 * mail server, not by sending again. When the listing cannot answer, the lookup fails as a
 * transient leaf error: the step retries later, and never guesses.
 */
public final class HttpMailLookup implements MailLookup {
    private static final String LEAF = "smtp";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String base;

    public HttpMailLookup(String baseUrl) {
        if (baseUrl == null || !(baseUrl.startsWith("http://") || baseUrl.startsWith("https://"))) {
            throw new IllegalArgumentException("the mail lookup URL must be http(s): " + baseUrl);
        }
        this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    }

    @Override
    public boolean accepted(String sendToken) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/tokens/"
                + URLEncoder.encode(sendToken, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(3)).GET().build();
        int status;
        try {
            status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new LeafRejected(LEAF, "the mail listing did not answer: " + e, 0, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeafRejected(LEAF, "interrupted while asking the mail listing", 0, true);
        }
        if (status == 200) {
            return true;
        }
        if (status == 404) {
            return false;
        }
        throw new LeafRejected(LEAF, "the mail listing answered " + status, status, true);
    }
}
