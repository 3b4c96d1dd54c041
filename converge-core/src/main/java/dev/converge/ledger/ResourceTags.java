package dev.converge.ledger;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a resource is tagged as ours: {@code converge:<installation>:<subject>}. The installation id
 * separates engines that share a leaf account (production and staging, two customers of one
 * operator): each adopts, resolves, tears down and reports only resources carrying its own
 * installation, never another's. One function for everyone who forms or reads a tag: the ledger,
 * resource types and drivers, the orphan report and reconcile.
 *
 * <p>A tag of the format before installations ({@code converge:<subject>}) belongs to no
 * installation: it is never adopted, never deleted by a reconcile, and reported among the
 * resources that are not ours.
 *
 * @param installation letters, digits, {@code . _ -}; 1 to 64 characters (never {@code :})
 */
public record ResourceTags(String installation) {
    /** The installation of an engine built without one. */
    public static final String DEFAULT_INSTALLATION = "default";
    private static final String PREFIX = "converge:";
    private static final Pattern INSTALLATION = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public ResourceTags {
        Objects.requireNonNull(installation, "installation");
        if (!INSTALLATION.matcher(installation).matches()) {
            throw new IllegalArgumentException("an installation id is 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** The tags of {@code installation}'s resources (letters, digits, {@code . _ -}, at most 64). */
    public static ResourceTags of(String installation) {
        return new ResourceTags(installation);
    }

    /** The tags of the installation named {@code default}. */
    public static ResourceTags defaults() {
        return new ResourceTags(DEFAULT_INSTALLATION);
    }

    /** The tag a resource owned by {@code subject} carries at its leaf. */
    public String tagFor(String subject) {
        Objects.requireNonNull(subject, "subject");
        return prefix() + subject;
    }

    /** What every tag of this installation starts with. */
    public String prefix() {
        return PREFIX + installation + ":";
    }

    /** True if {@code tag} is a tag of this installation (whatever its subject). */
    public boolean isOurs(String tag) {
        return tag != null && tag.startsWith(prefix());
    }

    /** The subject of a tag of this installation; empty for another installation's, an old-format or a foreign tag. */
    public Optional<String> subjectOf(String tag) {
        return isOurs(tag) ? Optional.of(tag.substring(prefix().length())) : Optional.empty();
    }
}
