package dev.baton.engine.policy;

/**
 * Tool-name patterns of the policy ({@code side_effect_tools}): comma-separated globs where {@code *} stands for any
 * run of characters and {@code ?} for one; anything else matches itself (tool names are [A-Za-z0-9_-]). Blanks
 * around a pattern are ignored; an empty list matches nothing.
 */
public final class ToolPatterns {
    private ToolPatterns() {
    }

    public static boolean matchesAny(String patterns, String tool) {
        if (patterns == null || patterns.isBlank() || tool == null) return false;
        for (String p : patterns.split(",")) {
            String t = p.strip();
            if (!t.isEmpty() && glob(t, 0, tool, 0)) return true;
        }
        return false;
    }

    /** Iterative glob match with one backtrack point (the last {@code *}): linear in practice, never exponential. */
    static boolean glob(String p, int pi, String s, int si) {
        int star = -1;
        int mark = 0;
        while (si < s.length()) {
            if (pi < p.length() && (p.charAt(pi) == '?' || p.charAt(pi) == s.charAt(si))) {
                pi++;
                si++;
            } else if (pi < p.length() && p.charAt(pi) == '*') {
                star = pi++;
                mark = si;
            } else if (star >= 0) {
                pi = star + 1;
                si = ++mark;
            } else {
                return false;
            }
        }
        while (pi < p.length() && p.charAt(pi) == '*') pi++;
        return pi == p.length();
    }
}
