package dev.converge.provisioning.validation;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a site, lead, conversation or token is named outside: its kind's prefix and 32 random hex
 * digits, which say nothing of how many there are (the database keeps its own keys). Nodes of the
 * release before public ids gave out the database id, a positive integer; it is still taken on
 * input so that an id a client got from such a node keeps working during a rolling deploy.
 */
public enum PublicId {
    SITE("site_", "site"), LEAD("lead_", "lead"), CONVERSATION("conv_", "conversation"), TOKEN("tok_", "token");

    private static final Pattern LEGACY = Pattern.compile("[1-9][0-9]{0,17}");

    private final String prefix;
    private final String noun;
    private final Pattern pattern;

    PublicId(String prefix, String noun) {
        this.prefix = prefix;
        this.noun = noun;
        this.pattern = Pattern.compile(Pattern.quote(prefix) + "[0-9a-f]{32}");
    }

    /** A reference as given: exactly one of a public id and a previous release's database id (else 0). */
    public record Ref(String publicId, long legacyId) {
        public boolean isPublic() {
            return publicId != null;
        }

        /** The reference as written, for messages. */
        public String text() {
            return publicId != null ? publicId : Long.toString(legacyId);
        }
    }

    public String prefix() {
        return prefix;
    }

    /** The regular expression of the public form, for schemas and documents. */
    public String regex() {
        return pattern.pattern().replace("\\Q", "").replace("\\E", "");
    }

    public boolean matches(String raw) {
        return raw != null && pattern.matcher(raw).matches();
    }

    /** The reference {@code raw} is, or empty when it is neither a public id of this kind nor a database id. */
    public Optional<Ref> parse(String raw) {
        if (matches(raw)) {
            return Optional.of(new Ref(raw, 0));
        }
        if (raw != null && LEGACY.matcher(raw).matches()) {
            return Optional.of(new Ref(null, Long.parseLong(raw)));
        }
        return Optional.empty();
    }

    /** What a malformed reference is told, after its field's name. */
    public String expected() {
        return "must be a " + noun + " id: " + prefix + " and 32 hex digits";
    }
}
