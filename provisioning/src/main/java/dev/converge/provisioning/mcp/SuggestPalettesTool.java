package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.validation.InvalidField;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code suggest_palettes}: read-only and deterministic: the same brand name always gives the same palettes. */
final class SuggestPalettesTool {
    private SuggestPalettesTool() {
    }

    static SiteTool declaration() {
        return new SiteTool("suggest_palettes", "Suggest colour palettes",
                "Suggests colour palettes (primary, secondary, accent, background, text as hex colours) for a brand "
                        + "name. Deterministic: the same brand name always gives the same palettes.",
                RepetitionSafety.READ_ONLY, false,
                new ToolArgs(List.of(
                        ToolArg.string("brand_name", "The brand or business name.").required().range(1, 100),
                        ToolArg.integer("count", "How many palettes (1-5, default 3).").range(1, 5))),
                null, SuggestPalettesTool::handle);
    }

    private static ToolResult handle(SiteTool.Call call) {
        String brand = call.args().string("brand_name");
        if (brand.isBlank()) {
            throw new InvalidField("brand_name", "must not be blank");
        }
        Long count = call.args().integer("count");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("brand_name", brand);
        out.put("palettes", Palettes.suggest(brand, count == null ? 3 : count.intValue()).stream().map(p -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name());
            m.put("scheme", p.scheme());
            m.put("colors", p.colors());
            return m;
        }).toList());
        out.put("note", "Derived from the brand name alone: asking again gives the same palettes.");
        return ToolResult.ok(out);
    }
}
