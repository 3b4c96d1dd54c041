package dev.converge.cli;

import java.net.URI;
import java.net.URISyntaxException;

/** The {@code --url} of a Converge server, checked: http or https, a host, no credentials in it. */
final class ServerUrl {
    private ServerUrl() {
    }

    static URI parse(String url) {
        try {
            URI u = new URI(url.strip());
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                throw new IllegalArgumentException("--url must be an http(s) URL of the server, like "
                        + "http://127.0.0.1:8080; got: " + url);
            }
            if (u.getUserInfo() != null || u.getQuery() != null) {
                throw new IllegalArgumentException("--url takes no user, password or query; tokens come from the "
                        + "environment");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--url is not a URL: " + url);
        }
    }
}
