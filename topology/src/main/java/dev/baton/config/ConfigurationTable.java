package dev.baton.config;

import dev.baton.engine.policy.PolicyField;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Writes the settings table of docs/configuration.md from {@link BatonConfig#SETTINGS} (Kafka's {@link ConfigDef}):
 * run {@link #main} to refresh the doc; {@code ConfigurationTableTest} fails when the doc differs.
 */
public final class ConfigurationTable {
    /** The line that heads the table in docs/configuration.md. */
    public static final String HEADER = "| key | environment | default | type | what it does |";

    private ConfigurationTable() {
    }

    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append(HEADER).append("\n|---|---|---|---|---|\n");
        for (ConfigDef.ConfigKey s : BatonConfig.SETTINGS.configKeys().values()) {
            sb.append("| `").append(s.name).append("` | `").append(BatonConfig.environmentName(s.name)).append("` | ")
                    .append(defaultText(s)).append(" | ").append(typeText(s)).append(" | ")
                    .append(s.documentation.replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }

    private static String typeText(ConfigDef.ConfigKey s) {
        return switch (s.type) {
            case INT, LONG -> {
                BatonSettings.Bounds b = (BatonSettings.Bounds) s.validator;
                long typeMax = s.type == ConfigDef.Type.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
                yield b.max() == typeMax ? "number ≥ " + b.min() : "number " + b.min() + "–" + b.max();
            }
            case BOOLEAN -> "true/false";
            default -> {
                if (!(s.validator instanceof ConfigDef.ValidString choices)) yield "text";
                String list = choices.toString();
                yield list.substring(1, list.length() - 1).replace(", ", " \\| ");
            }
        };
    }

    private static String defaultText(ConfigDef.ConfigKey s) {
        PolicyField field = BatonConfig.policyField(s.name);
        if (field != null) {
            String v = String.valueOf(s.defaultValue);
            if (PolicyField.EXTENSIONS.contains(field)) {
                return v.isEmpty() ? "(empty: none)" : v.equals("0") ? "`0` (none)" : "`" + v + "`";
            }
            return field.type() == PolicyField.Type.TEXT ? "the contract's text" : "`" + v + "` (contract)";
        }
        if (s.defaultValue == null) return "—";
        String v = s.defaultValue.toString();
        return v.isEmpty() ? "(empty)" : "`" + v + "`";
    }

    public static void main(String[] args) {
        System.out.print(markdown());
    }
}
