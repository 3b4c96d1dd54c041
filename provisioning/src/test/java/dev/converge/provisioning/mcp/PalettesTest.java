package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** suggest_palettes is read-only and deterministic: the same brand name always gives the same palettes. */
class PalettesTest {

    @Test
    void theSameNameGivesTheSamePalettes() {
        List<Palettes.Palette> first = Palettes.suggest("Ada's Bakery", 5);
        assertThat(Palettes.suggest("Ada's Bakery", 5)).isEqualTo(first);
        assertThat(Palettes.suggest("  ada's   BAKERY ", 5)).as("normalised").isEqualTo(first);
        assertThat(Palettes.suggest("Ada's Bakery", 2)).isEqualTo(first.subList(0, 2));
    }

    @Test
    void differentNamesGiveDifferentPalettes() {
        assertThat(Palettes.suggest("Ada's Bakery", 3)).isNotEqualTo(Palettes.suggest("Grace's Garage", 3));
    }

    @Test
    void palettesAreFiveHexColoursInDistinctSchemes() {
        List<Palettes.Palette> palettes = Palettes.suggest("Converge", 5);
        assertThat(palettes).extracting(Palettes.Palette::scheme).doesNotHaveDuplicates().hasSize(5);
        for (Palettes.Palette p : palettes) {
            assertThat(p.colors()).containsOnlyKeys("primary", "secondary", "accent", "background", "text");
            assertThat(p.colors().values()).allMatch(c -> c.matches("#[0-9a-f]{6}"));
        }
    }

    @Test
    void hslConversionIsRight() {
        assertThat(Palettes.hex(0, 100, 50)).isEqualTo("#ff0000");
        assertThat(Palettes.hex(120, 100, 25)).isEqualTo("#008000");
        assertThat(Palettes.hex(240, 100, 50)).isEqualTo("#0000ff");
        assertThat(Palettes.hex(0, 0, 100)).isEqualTo("#ffffff");
    }
}
