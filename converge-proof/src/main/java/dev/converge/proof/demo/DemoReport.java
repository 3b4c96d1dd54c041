package dev.converge.proof.demo;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.converge.proof.check.CheckReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/** The demo's findings, for people (print) and machines (JSON with the violation keys the chaos run uses). */
public record DemoReport(
        @JsonProperty("seed") long seed,
        @JsonProperty("sites") int sites,
        @JsonProperty("duration_ms") long durationMs,
        @JsonProperty("requests") Map<String, Long> requests,
        @JsonProperty("fault_hits") Map<String, Long> faultHits,
        @JsonProperty("crash_point_hits") Map<String, Integer> crashPointHits,
        @JsonProperty("check") CheckReport check,
        @JsonProperty("conversation") DemoConversation.Summary conversation) {

    @JsonProperty("violations")
    public Map<String, Integer> violations() {
        return check.violations();
    }

    public void print(PrintStream out) {
        out.println();
        out.println("REPORT");
        out.printf("  requests        %s%n", line(requests));
        out.printf("  sites           %d requested: %s%n", sites, line(check.sitesByState()));
        check.leaves().forEach((leaf, t) -> out.printf("  leaf %-10s holds %d of ours now; accepted %s creates of ours; "
                + "our ledger records %d as held%s%n", leaf, t.held(), t.creates() < 0 ? "n/a" : Long.toString(t.creates()),
                t.ledgerConfirmed(), t.others() > 0 ? "; and " + t.others() + " of others" : ""));
        out.printf("  welcome emails  %d%n", check.welcomeEmails());
        var t = check.trials();
        out.printf("  trials          %d subscribed, %d expired at their deadline; %d reminder emails (%d expired without "
                + "one)%n", t.subscribed(), t.expired(), t.reminders(), t.expiredWithoutReminder());
        out.printf("  leaf faults     %s%n", line(faultHits));
        out.printf("  crash points    %s%n", line(crashPointHits));
        out.printf("  conversation    %s: turns %s; tools %s; answer quotes the receipt's deadline (%s): %s; "
                + "delete refused without a person's approval: %s%n", conversation.conversationId(),
                line(conversation.turns()), String.join(", ", conversation.toolCalls()), conversation.receiptDeadline(),
                conversation.answerQuotesDeadline() ? "yes" : "NO", conversation.deleteRefused() ? "yes" : "NO");
        conversation.answers().forEach(a -> out.printf("    assistant: %s%n", a));
        out.printf("  violations      %s%n", line(check.violations()));
        check.details().forEach((k, examples) -> examples.forEach(e -> out.printf("    %s: %s%n", k, e)));
        out.printf("  result          %s in %.1fs%n", check.clean() ? "CONVERGED" : "NOT CONVERGED", durationMs / 1000.0);
    }

    public void writeJson(Path file) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), this);
    }

    private static String line(Map<String, ? extends Number> m) {
        StringBuilder s = new StringBuilder();
        m.forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
        return s.toString();
    }
}
