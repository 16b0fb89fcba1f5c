package dev.baton.monitoring;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression selects. Written by hand (no PromQL parser for Java on Maven
 * Central): strings, label matchers, range and offset durations and grouping clauses are removed;
 * what remains of identifiers not followed by {@code (} (a function or aggregation) and not a
 * keyword is a metric name. Enough for the expressions in deploy/ (tested in PromQlTest).
 */
final class PromQl {

    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "inf", "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");

    private PromQl() {
    }

    static Set<String> metricNames(String expression) {
        String e = expression
                .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
                .replaceAll("\\boffset\\s+\\w+", " ")
                .replaceAll("\\$\\w+", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(e);
        while (m.find()) {
            String id = m.group();
            int next = m.end();
            while (next < e.length() && Character.isWhitespace(e.charAt(next))) {
                next++;
            }
            boolean call = next < e.length() && e.charAt(next) == '(';
            boolean number = m.start() > 0 && Character.isDigit(e.charAt(m.start() - 1));
            if (!call && !number && !KEYWORDS.contains(id.toLowerCase())) {
                names.add(id);
            }
        }
        return names;
    }
}
