package dev.converge.proof.check;

import dev.converge.leafsim.inventory.InventorySnapshot;
import java.util.Map;
import java.util.Set;

/**
 * What the world outside our database says: each leaf's own inventory (with every create it
 * ever accepted), the mail server's mailbox, the PostgreSQL leaf's {@code pg_database}. The
 * checker trusts these, not our ledger.
 */
public interface GroundTruth {
    InventorySnapshot inventory(String leaf);

    /** Welcome emails received, per site id (the {@code X-Converge-Site} header). */
    Map<String, Long> welcomeEmailsBySite();

    /** Trial reminders received, per site id (the {@code X-Converge-Mail: trial-reminder} messages). */
    Map<String, Long> remindersBySite();

    /** Per-site databases that exist now (empty when no PostgreSQL leaf is used). */
    Set<String> databases();
}
