package dev.converge.provisioning.mcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Colour palettes for a brand, derived only from the SHA-256 of its normalised name: the same
 * name gives the same palettes on every call, machine and version of the JVM (no Random, no clock).
 */
public final class Palettes {
    private static final String[] SCHEMES = {"analogous", "complementary", "triadic", "split-complementary", "monochrome"};

    private Palettes() {
    }

    /** One palette: a scheme and five roles, as hex colours. */
    public record Palette(String name, String scheme, Map<String, String> colors) {
    }

    public static List<Palette> suggest(String brandName, int count) {
        if (count < 1 || count > SCHEMES.length) {
            throw new IllegalArgumentException("count must be 1-" + SCHEMES.length);
        }
        byte[] d = sha256(normalise(brandName));
        int hue = ((d[0] & 0xff) << 8 | (d[1] & 0xff)) % 360;
        int saturation = 45 + (d[2] & 0xff) % 41;
        int lightness = 40 + (d[3] & 0xff) % 21;
        int first = (d[4] & 0xff) % SCHEMES.length;
        List<Palette> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String scheme = SCHEMES[(first + i) % SCHEMES.length];
            int[] hues = hues(scheme, (hue + 7 * i * (d[5 + i] & 0x0f)) % 360);
            Map<String, String> colors = new LinkedHashMap<>();
            colors.put("primary", hex(hues[0], saturation, lightness));
            colors.put("secondary", hex(hues[1], saturation, scheme.equals("monochrome") ? lightness + 15 : lightness));
            colors.put("accent", hex(hues[2], Math.min(95, saturation + 10), scheme.equals("monochrome") ? lightness - 15
                    : lightness + 5));
            colors.put("background", hex(hues[0], 30, 96));
            colors.put("text", hex(hues[0], 25, 14));
            out.add(new Palette(capitalise(scheme) + " " + (i + 1), scheme, colors));
        }
        return out;
    }

    static String normalise(String brandName) {
        return brandName.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    private static int[] hues(String scheme, int h) {
        return switch (scheme) {
            case "analogous" -> new int[] {h, (h + 30) % 360, (h + 330) % 360};
            case "complementary" -> new int[] {h, (h + 180) % 360, (h + 20) % 360};
            case "triadic" -> new int[] {h, (h + 120) % 360, (h + 240) % 360};
            case "split-complementary" -> new int[] {h, (h + 150) % 360, (h + 210) % 360};
            default -> new int[] {h, h, h};
        };
    }

    /** HSL (degrees, percent, percent) to #rrggbb. */
    static String hex(int h, int s, int l) {
        double sat = s / 100.0;
        double lig = l / 100.0;
        double c = (1 - Math.abs(2 * lig - 1)) * sat;
        double x = c * (1 - Math.abs((h / 60.0) % 2 - 1));
        double m = lig - c / 2;
        double[] rgb = switch (h / 60) {
            case 0 -> new double[] {c, x, 0};
            case 1 -> new double[] {x, c, 0};
            case 2 -> new double[] {0, c, x};
            case 3 -> new double[] {0, x, c};
            case 4 -> new double[] {x, 0, c};
            default -> new double[] {c, 0, x};
        };
        return String.format(Locale.ROOT, "#%02x%02x%02x", channel(rgb[0] + m), channel(rgb[1] + m), channel(rgb[2] + m));
    }

    private static int channel(double v) {
        return (int) Math.round(Math.max(0, Math.min(1, v)) * 255);
    }

    private static String capitalise(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
