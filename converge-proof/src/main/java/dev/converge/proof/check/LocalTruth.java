package dev.converge.proof.check;

import dev.converge.leafsim.inventory.InventorySnapshot;
import dev.converge.proof.embedded.EmbeddedLeaves;
import dev.converge.provisioning.leaf.PostgresDatabaseLeaf;
import dev.converge.provisioning.mail.LocalSmtp;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Ground truth read in-process from embedded leaves, their SMTP server and (optionally) the PostgreSQL leaf. */
public final class LocalTruth implements GroundTruth {
    private final EmbeddedLeaves leaves;
    private final PostgresDatabaseLeaf databases;

    public LocalTruth(EmbeddedLeaves leaves, PostgresDatabaseLeaf databases) {
        this.leaves = leaves;
        this.databases = databases;
    }

    @Override
    public InventorySnapshot inventory(String leaf) {
        return leaves.leafSim().inventory(leaf);
    }

    @Override
    public Map<String, Long> welcomeEmailsBySite() {
        Map<String, Long> out = new TreeMap<>();
        for (LocalSmtp.ReceivedMail m : leaves.smtp().received()) {
            if (m.siteId() != null && m.welcome()) {
                out.merge(m.siteId(), 1L, Long::sum);
            }
        }
        return out;
    }

    @Override
    public Map<String, Long> remindersBySite() {
        Map<String, Long> out = new TreeMap<>();
        for (LocalSmtp.ReceivedMail m : leaves.smtp().received()) {
            if (m.siteId() != null && dev.converge.provisioning.mail.SmtpMailer.TRIAL_REMINDER.equals(m.kind())) {
                out.merge(m.siteId(), 1L, Long::sum);
            }
        }
        return out;
    }

    @Override
    public Set<String> databases() {
        if (databases == null) {
            return Set.of();
        }
        return databases.list().stream().map(r -> r.naturalKey()).collect(Collectors.toSet());
    }
}
