package dev.baton.monitoring;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a Markdown document names: identifiers in backticks that start with a prefix
 * Baton exports ({@code baton_}, {@code kafka_}, {@code jvm_}, {@code process_}), found anywhere
 * inside the backticks (so {@code `rate(baton_x_total[5m])`} counts). A family written with a
 * wildcard ({@code `baton_*`}) names no single series and is skipped.
 */
final class MetricNames {

    private static final Pattern CODE = Pattern.compile("`([^`\n]+)`");
    private static final Pattern NAME = Pattern.compile("(?<![A-Za-z0-9_.\\-/])((?:baton|kafka|jvm|process)_[a-z0-9_]*[a-z0-9])(?![a-z0-9_*])");

    private MetricNames() {
    }

    static Set<String> inMarkdown(String markdown) {
        Set<String> names = new TreeSet<>();
        // fenced blocks (```sh ... ```) would pair their backticks with the inline ones
        Matcher code = CODE.matcher(markdown.replaceAll("(?m)^\\s*```.*$", ""));
        while (code.find()) {
            Matcher name = NAME.matcher(code.group(1));
            while (name.find()) {
                names.add(name.group(1));
            }
        }
        return names;
    }
}
