package dev.converge.provisioning.assistant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.conversation.Conversations.Entry;
import dev.converge.provisioning.conversation.Conversations.Turn;
import dev.converge.provisioning.conversation.Conversations.TurnState;
import dev.converge.provisioning.conversation.Conversations;
import dev.converge.provisioning.conversation.TurnJobs.TurnRef;
import dev.converge.provisioning.conversation.TurnJobs;
import dev.converge.provisioning.mcp.McpOptions;
import dev.converge.provisioning.mcp.ProvisioningTools;
import dev.converge.provisioning.mcp.SiteTool;
import dev.converge.provisioning.mcp.ToolRefusal;
import dev.converge.provisioning.mcp.ToolResult;
import dev.converge.provisioning.mcp.ToolRunner;
import dev.converge.handler.JobContext;
import dev.converge.queue.NonRetryableException;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One turn of the assistant: the model is called with the conversation so far and the service's
 * tools; each tool call it asks for runs through the same {@link ToolRunner}, safety classes and
 * approval gate as the MCP tools, once, and its result is fed back; the turn ends when the model
 * answers without tool calls, or when its step budget is spent. Everything is written to the
 * transcript as it happens: a tool call is recorded before it runs, so a call this turn recorded
 * never runs again, and a turn that stopped is never run again (its job has one attempt).
 */
public final class AssistantTurn {
    private static final Logger log = LoggerFactory.getLogger(AssistantTurn.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ProvisioningService service;
    private final Conversations conversations;
    private final ModelSettings settings;
    private volatile Tools tools;
    private volatile ChatModel model;

    private record Tools(Map<String, SiteTool> byName, List<ToolSpecification> specs, ToolRunner runner) {
    }

    public AssistantTurn(ProvisioningService service, Conversations conversations, ModelSettings settings) {
        this.service = service;
        this.conversations = conversations;
        this.settings = settings;
    }

    /** The turn job's handler. */
    public void run(TurnRef ref, JobContext ctx) {
        Turn turn = conversations.turn(ref.turnId())
                .orElseThrow(() -> new NonRetryableException("turn " + ref.turnId() + " does not exist"));
        if (!turn.running()) {
            return; // it ended already (failed by its deadline): it never runs again
        }
        if (!settings.connected()) {
            fail(turn, "No model is connected to this service: start it with --model-url and --model (and the key in "
                    + ModelSettings.KEY_ENV + ").");
            return;
        }
        try {
            converse(turn);
        } catch (RuntimeException e) {
            String why = "The turn stopped: " + describe(e);
            fail(turn, why);
            throw new NonRetryableException(why); // the job fails for good; its flow's report finds the turn failed
        }
    }

    /** The turn flow's failure report: a turn whose job died (its worker killed, its deadline past) is failed. */
    public void failed(TurnRef ref, JobContext ctx) {
        conversations.turn(ref.turnId()).filter(Turn::running).ifPresent(t -> {
            String reason = ctx.flows().find(TurnJobs.FLOW, "conversation/" + t.conversationId() + "/turn/" + t.seq())
                    .map(f -> f.failureReason()).orElse(null);
            fail(t, "The turn stopped before the model answered" + (reason == null ? "" : " (" + reason + ")")
                    + "; it is not run again. Send the message again to start a new turn.");
        });
    }

    private void fail(Turn turn, String why) {
        if (conversations.end(turn.id(), TurnState.FAILED, why)) {
            log.warn("conversation {} turn {} failed: {}", turn.conversationId(), turn.seq(), why);
        }
    }

    private void converse(Turn turn) {
        Tools t = tools();
        Tenant tenant = service.tenants().get(turn.tenantId())
                .orElseThrow(() -> new NonRetryableException("tenant " + turn.tenantId() + " does not exist"));
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from(Instructions.of(service.config().trialWindow(), service.config().baseDomain())));
        messages.addAll(history(conversations.entries(turn.conversationId())));
        for (int step = 0; step < settings.stepBudget(); step++) {
            if (!conversations.step(turn.id())) {
                return; // ended elsewhere while we worked
            }
            AiMessage ai = model().chat(ChatRequest.builder().messages(messages).toolSpecifications(t.specs()).build())
                    .aiMessage();
            List<ToolExecutionRequest> calls = ai.hasToolExecutionRequests() ? withIds(ai.toolExecutionRequests(), step)
                    : List.of();
            conversations.assistant(turn.conversationId(), turn.id(), ai.text(), calls.isEmpty() ? null : callsJson(calls));
            messages.add(calls.isEmpty() ? ai : AiMessage.from(ai.text(), calls));
            if (calls.isEmpty()) {
                conversations.end(turn.id(), TurnState.ANSWERED, null);
                return;
            }
            for (ToolExecutionRequest call : calls) {
                messages.add(ToolExecutionResultMessage.from(call, runTool(t, turn, tenant, call)));
            }
        }
        conversations.end(turn.id(), TurnState.BUDGET_SPENT, "The step budget (" + settings.stepBudget()
                + " model calls) was spent before the model answered without a tool call.");
    }

    /** Runs one tool call once and returns what the model is told. */
    private String runTool(Tools t, Turn turn, Tenant tenant, ToolExecutionRequest call) {
        if (!conversations.startTool(turn.id(), call.id(), call.name(), call.arguments())) {
            return "This call (" + call.id() + ") was already made in this turn, so it was not run again.";
        }
        ToolResult result;
        SiteTool tool = t.byName().get(call.name());
        Map<String, Object> args = arguments(call.arguments());
        if (tool == null) {
            result = ToolResult.refused(new ToolRefusal("unknown_tool", "There is no tool named " + call.name() + ".",
                    "Call one of: " + String.join(", ", t.byName().keySet()) + "."));
        } else if (args == null) {
            result = ToolResult.refused(new ToolRefusal("invalid_arguments", "The arguments of " + call.name()
                    + " are not a JSON object.", "Send the arguments as a JSON object; nothing was done."));
        } else {
            result = t.runner().run(tool, Optional.of(tenant), args);
        }
        conversations.finishTool(turn.id(), call.id(), result.error(), result.text(), json(result.structured()));
        return result.text();
    }

    /** The conversation so far as chat messages; what a stopped turn left unfinished is said plainly. */
    static List<ChatMessage> history(List<Entry> entries) {
        List<ChatMessage> out = new ArrayList<>();
        Map<String, Entry> toolsByCall = new LinkedHashMap<>();
        for (Entry e : entries) {
            if ("tool".equals(e.kind())) {
                toolsByCall.put(e.turnId() + "/" + e.callId(), e);
            }
        }
        for (Entry e : entries) {
            switch (e.kind()) {
                case "user" -> out.add(UserMessage.from(e.content()));
                case "assistant" -> {
                    List<ToolExecutionRequest> calls = parseCalls(e.toolCalls());
                    out.add(calls.isEmpty() ? AiMessage.from(e.content() == null ? "" : e.content())
                            : AiMessage.from(e.content(), calls));
                    for (ToolExecutionRequest c : calls) {
                        Entry done = toolsByCall.get(e.turnId() + "/" + c.id());
                        String text = done == null ? "Not run: the turn stopped before this call."
                                : "done".equals(done.state()) ? done.content()
                                : "Outcome unknown: the turn stopped while this call ran. Check before calling it again.";
                        out.add(ToolExecutionResultMessage.from(c, text));
                    }
                }
                default -> {
                    // tool results follow their assistant message above
                }
            }
        }
        return out;
    }

    private static List<ToolExecutionRequest> withIds(List<ToolExecutionRequest> calls, int step) {
        List<ToolExecutionRequest> out = new ArrayList<>();
        int i = 0;
        for (ToolExecutionRequest c : calls) {
            i++;
            String id = c.id() == null || c.id().isBlank() ? "call-" + (step + 1) + "-" + i : c.id();
            out.add(ToolExecutionRequest.builder().id(id).name(c.name())
                    .arguments(c.arguments() == null || c.arguments().isBlank() ? "{}" : c.arguments()).build());
        }
        return out;
    }

    private static String callsJson(List<ToolExecutionRequest> calls) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (ToolExecutionRequest c : calls) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", c.id());
            m.put("name", c.name());
            m.put("arguments", c.arguments());
            list.add(m);
        }
        return json(list);
    }

    private static List<ToolExecutionRequest> parseCalls(String json) {
        if (json == null) {
            return List.of();
        }
        try {
            List<Map<String, String>> list = JSON.readValue(json, new TypeReference<>() {
            });
            return list.stream().map(m -> ToolExecutionRequest.builder().id(m.get("id")).name(m.get("name"))
                    .arguments(m.get("arguments")).build()).toList();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored tool calls are not JSON", e);
        }
    }

    private static Map<String, Object> arguments(String json) {
        try {
            Object v = JSON.readValue(json, Object.class);
            if (v instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> args = (Map<String, Object>) m;
                return args;
            }
            return null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("does not serialize", e);
        }
    }

    private String describe(Throwable e) {
        String m = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (m.length() > 500) {
            m = m.substring(0, 500) + "...";
        }
        return settings.key() == null ? m : settings.key().scrub(m);
    }

    private Tools tools() {
        Tools t = tools;
        if (t == null) {
            List<SiteTool> list = new ProvisioningTools(service, McpOptions.defaults()).tools();
            Map<String, SiteTool> byName = new LinkedHashMap<>();
            List<ToolSpecification> specs = new ArrayList<>();
            for (SiteTool s : list) {
                byName.put(s.name(), s);
                specs.add(ToolSpecification.builder().name(s.name()).description(s.tool().description())
                        .parameters(schema(s.args().schema())).build());
            }
            t = new Tools(byName, specs, new ToolRunner(new Approvals(service.store()), service.sites()::idOf));
            tools = t;
        }
        return t;
    }

    /** The tool's published JSON Schema (the one MCP agents see) in LangChain4j's terms. */
    @SuppressWarnings("unchecked")
    static JsonObjectSchema schema(Map<String, Object> schema) {
        JsonObjectSchema.Builder b = JsonObjectSchema.builder();
        Map<String, Object> props = (Map<String, Object>) schema.get("properties");
        for (Map.Entry<String, Object> p : props.entrySet()) {
            Map<String, Object> prop = (Map<String, Object>) p.getValue();
            String description = (String) prop.get("description");
            if (prop.get("pattern") != null) {
                description = description + " (must match " + prop.get("pattern") + ")";
            }
            if ("integer".equals(prop.get("type"))) {
                b.addIntegerProperty(p.getKey(), description);
            } else {
                b.addStringProperty(p.getKey(), description);
            }
        }
        return b.required((List<String>) schema.get("required")).additionalProperties(false).build();
    }

    private ChatModel model() {
        ChatModel m = model;
        if (m == null) {
            OpenAiChatModel.OpenAiChatModelBuilder b = OpenAiChatModel.builder()
                    .baseUrl(settings.baseUrl())
                    .modelName(settings.model())
                    .timeout(settings.callTimeout())
                    .maxRetries(0) // the turn decides: a failed call ends it; the person may send again
                    .logRequests(false)
                    .logResponses(false);
            // a server that needs no key (a local one) still gets a header; the key itself only from the environment
            b.apiKey(settings.key() == null ? "none" : settings.key().reveal());
            m = b.build();
            model = m;
        }
        return m;
    }
}
