package dev.baton.config;

/** Prints the settings table of docs/configuration.md from {@link BatonConfig#SETTINGS} (run it to refresh the doc). */
public final class ConfigurationTable {
    private ConfigurationTable() {
    }

    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| key | environment | default | type | what it does |\n|---|---|---|---|---|\n");
        for (Setting s : BatonConfig.SETTINGS.values()) {
            String type = switch (s.type()) {
                case INT, LONG -> "number ≥ " + s.min();
                case BOOLEAN -> "true/false";
                case CHOICE -> String.join(" \\| ", s.choices());
                case STRING -> "text";
            };
            var field = BatonConfig.policyField(s.key());
            Object contract = field == null ? null : field.defaultValue();
            String def;
            if (field != null && dev.baton.engine.policy.PolicyField.EXTENSIONS.contains(field)) {
                String v = String.valueOf(contract);
                def = v.isEmpty() ? "(empty: none)" : v.equals("0") ? "`0` (none)" : "`" + v + "`";
            } else if (contract instanceof String) def = "the contract's text";
            else if (contract != null) def = "`" + contract + "` (contract)";
            else if (s.defaultValue() == null) def = "—";
            else def = s.defaultValue().isEmpty() ? "(empty)" : "`" + s.defaultValue() + "`";
            sb.append("| `").append(s.key()).append("` | `").append(s.environmentName()).append("` | ")
                    .append(def).append(" | ").append(type).append(" | ").append(s.doc().replace("|", "\\|"))
                    .append(" |\n");
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        System.out.print(markdown());
    }
}
