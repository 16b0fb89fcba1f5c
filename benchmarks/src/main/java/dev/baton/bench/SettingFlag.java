package dev.baton.bench;

import java.util.Map;

/** The harnesses' repeatable {@code --set key=value} flag: a Streams or Baton setting for the applications run. */
final class SettingFlag {
    private SettingFlag() {
    }

    /** Puts {@code key=value} into {@code settings}; fails on anything without a key before its first {@code =}. */
    static void put(Map<String, String> settings, String keyValue) {
        int eq = keyValue.indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("--set needs key=value, got " + keyValue);
        settings.put(keyValue.substring(0, eq), keyValue.substring(eq + 1));
    }
}
