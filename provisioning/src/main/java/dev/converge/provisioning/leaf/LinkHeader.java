package dev.converge.provisioning.leaf;

import java.net.http.HttpHeaders;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Web links (RFC 8288) as GitHub sends them: {@code Link: <url>; rel="next", <url>; rel="last"}. */
final class LinkHeader {
    private static final Pattern LINK = Pattern.compile("<([^>]*)>((?:\\s*;\\s*[^;,]+)*)");
    private static final Pattern REL = Pattern.compile(";\\s*rel\\s*=\\s*(?:\"([^\"]*)\"|([^;,\\s]+))");

    private LinkHeader() {
    }

    /** The target of the link with the given relation, from every Link header of the reply. */
    static Optional<String> target(HttpHeaders headers, String rel) {
        for (String value : headers.allValues("Link")) {
            Matcher link = LINK.matcher(value);
            while (link.find()) {
                Matcher r = REL.matcher(link.group(2));
                while (r.find()) {
                    String rels = r.group(1) != null ? r.group(1) : r.group(2);
                    for (String one : rels.trim().split("\\s+")) {
                        if (one.toLowerCase(Locale.ROOT).equals(rel)) {
                            return Optional.of(link.group(1));
                        }
                    }
                }
            }
        }
        return Optional.empty();
    }
}
