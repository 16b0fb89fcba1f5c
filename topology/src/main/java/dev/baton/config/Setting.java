package dev.baton.config;

import java.util.List;

/**
 * One known setting: its key, type, built-in default (null: none) and what it does. The table of all settings is
 * {@link BatonConfig#SETTINGS}; {@code docs/configuration.md} is written from it.
 */
public record Setting(String key, Type type, String defaultValue, String doc, long min, long max,
                      List<String> choices) {

    public enum Type { STRING, INT, LONG, BOOLEAN, CHOICE }

    static Setting string(String key, String defaultValue, String doc) {
        return new Setting(key, Type.STRING, defaultValue, doc, 0, 0, List.of());
    }

    static Setting integer(String key, String defaultValue, long min, long max, String doc) {
        return new Setting(key, Type.INT, defaultValue, doc, min, max, List.of());
    }

    static Setting longValue(String key, String defaultValue, long min, String doc) {
        return new Setting(key, Type.LONG, defaultValue, doc, min, Long.MAX_VALUE, List.of());
    }

    static Setting bool(String key, String defaultValue, String doc) {
        return new Setting(key, Type.BOOLEAN, defaultValue, doc, 0, 0, List.of());
    }

    static Setting choice(String key, String defaultValue, List<String> choices, String doc) {
        return new Setting(key, Type.CHOICE, defaultValue, doc, 0, 0, List.copyOf(choices));
    }

    /** The environment variable that sets this key: {@code BATON_} + the key without {@code baton.}, upper case. */
    public String environmentName() {
        String k = key.startsWith("baton.") ? key.substring("baton.".length()) : key;
        return "BATON_" + k.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** Checks a value against the type; returns the normalized value (trimmed, lower-case for choices/booleans). */
    String check(String value, String origin) {
        String v = value.trim();
        switch (type) {
            case INT, LONG -> {
                long n;
                try {
                    n = Long.parseLong(v);
                } catch (NumberFormatException e) {
                    throw new BatonConfigException(key + "=" + value + " (from " + origin + ") is not a whole number");
                }
                if (type == Type.INT && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) || n < min || n > max) {
                    throw new BatonConfigException(key + "=" + value + " (from " + origin + ") is out of range "
                            + min + ".." + (type == Type.INT ? Math.min(max, Integer.MAX_VALUE) : max));
                }
                return Long.toString(n);
            }
            case BOOLEAN -> {
                String b = v.toLowerCase(java.util.Locale.ROOT);
                if (!b.equals("true") && !b.equals("false")) {
                    throw new BatonConfigException(key + "=" + value + " (from " + origin
                            + ") is not a boolean (true or false)");
                }
                return b;
            }
            case CHOICE -> {
                String c = v.toLowerCase(java.util.Locale.ROOT);
                if (!choices.contains(c)) {
                    throw new BatonConfigException(key + "=" + value + " (from " + origin + ") is not one of "
                            + String.join(", ", choices));
                }
                return c;
            }
            default -> {
                return v;
            }
        }
    }
}
