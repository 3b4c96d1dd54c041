package dev.converge.provisioning.assistant;

import java.time.Duration;

/**
 * The system instructions of every turn. They carry the service's configured trial window (or
 * say that none is configured) and tell the model to quote the deadline a receipt states, never
 * a duration of its own (R15).
 */
public final class Instructions {
    private Instructions() {
    }

    public static String of(Duration trialWindow, String baseDomain) {
        String window = trialWindow == null
                ? "No trial window is configured for this service: do not state any trial length or deadline."
                : "The trial window configured for this service is " + describe(trialWindow) + " from the site's request.";
        return "You are the site-provisioning assistant of a web agency. You help a person of the agency request, "
                + "follow and remove websites for their leads (sites live at https://<subdomain>." + baseDomain + ") "
                + "by calling the tools you are given. Each tool runs once per call and reports what happened; nothing "
                + "is retried for you, and each tool's description says whether calling it again is safe.\n"
                + window + "\n"
                + "When a tool returns a receipt with subscription_deadline, tell the person that deadline exactly as "
                + "the receipt states it (the date and time), and never state a duration or date of your own. "
                + "If a receipt has no deadline, say that none is configured.\n"
                + "A tool that answers with an error tells you what to do next. When it says a person must approve "
                + "something (for example deleting a site), ask the person to get that approval; never try to work "
                + "around it.";
    }

    static String describe(Duration d) {
        long days = d.toDays();
        if (days > 0 && d.equals(Duration.ofDays(days))) {
            return days + (days == 1 ? " day" : " days");
        }
        long hours = d.toHours();
        if (hours > 0 && d.equals(Duration.ofHours(hours))) {
            return hours + (hours == 1 ? " hour" : " hours");
        }
        return d.toMinutes() + " minutes";
    }
}
