package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README and docs/ true to the tree: no link in any Markdown file leaves the repository, every relative link
 * points to a file that exists and every anchor to a section that exists, docs/contract.md states every rule and code,
 * every package the README names exists, every code name of the "rule → code" table exists in the engine, and every
 * class that docs/architecture.md names exists.
 */
class DocumentationLinksTest {
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern PACKAGE = Pattern.compile("\\bdev\\.baton(\\.[a-z][a-z0-9]*)+\\b");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern REFERENCE = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+]:\\s*(\\S+)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*\\s*$");
    private static final List<String> MODULES = List.of("schemas", "consumer", "engine", "processors", "topology",
            "service", "replay", "cli", "benchmarks");

    private final Path root = RepositoryFiles.root();

    /**
     * Every Markdown file of the repository: no link leaves it (no web address, no absolute path, no relative path that
     * climbs out of the clone, which is all a user has), every relative link names a file or directory that exists, and
     * every anchor ({@code #section}, in the same page or another) is a heading or an {@code <a id>} of its page.
     */
    @Test
    void shouldLinkOnlyInsideTheRepositoryToFilesAndSectionsThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        int anchored = 0;
        for (Path document : markdownFiles()) {
            for (String target : links(read(document))) {
                links++;
                String where = root.relativize(document) + " → " + target;
                if (target.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") || target.startsWith("/") || target.startsWith("//")) {
                    broken.add(where + " (leaves the repository)");
                    continue;
                }
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
                if (!resolved.startsWith(root)) {
                    broken.add(where + " (leaves the repository)");
                } else if (!Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (anchor != null) {
                    anchored++;
                    if (!resolved.toString().endsWith(".md") || !anchors(read(resolved)).contains(anchor)) {
                        broken.add(where + " (no such section)");
                    }
                }
            }
        }
        // paths quoted as code that climb out of the clone, and files named in prose that no clone has (CONTRACT.md)
        for (Path document : markdownFiles()) {
            String text = read(document);
            Matcher quoted = Pattern.compile("`(\\.\\./[^`\\s]*)`").matcher(text);
            while (quoted.find()) {
                if (!document.getParent().resolve(quoted.group(1)).normalize().startsWith(root)) {
                    broken.add(root.relativize(document) + " → `" + quoted.group(1) + "` (leaves the repository)");
                }
            }
            Matcher named = Pattern.compile("\\b([A-Z][A-Z0-9_-]*\\.md)\\b").matcher(text);
            while (named.find()) {
                if (!markdownNames().contains(named.group(1))) {
                    broken.add(root.relativize(document) + " names " + named.group(1) + " (not in the repository)");
                }
            }
        }
        assertThat(links).as("links found").isGreaterThan(50);
        assertThat(anchored).as("links to sections found").isGreaterThan(20);
        assertThat(broken).as("links that leave the repository or lead nowhere").isEmpty();
    }

    @Test
    void shouldTellALinkThatLeavesTheRepositoryFromOneThatStays() {
        assertThat(links("see [the contract](../shared/CONTRACT.md) and [x](https://example.com/a) and `[y](z)`\n"
                + "```\n[in code](nowhere.md)\n```\n[ref]: docs/contract.md#topics\n"))
                .containsExactly("../shared/CONTRACT.md", "https://example.com/a", "docs/contract.md#topics");
        assertThat(anchors("# Rendering rules R1–R11\n## R7 Framing follows the session's shape\n### `baton run`\n"
                + "## Topics\n## Topics\n<a id=\"custom\"></a>\n"))
                .contains("rendering-rules-r1r11", "r7-framing-follows-the-sessions-shape", "baton-run", "topics", "topics-1",
                        "custom");
    }

    @Test
    void shouldKeepTheContractPageSelfContained() throws IOException {
        String contract = read(root.resolve("docs/contract.md"));
        for (int rule = 1; rule <= 11; rule++) {
            assertThat(contract).as("rule R" + rule).containsPattern("(?m)^### R" + rule + " ");
        }
        for (String code : List.of("MALFORMED", "UNKNOWN_SCHEMA", "KEY_MISMATCH", "INVALID_ID", "INVALID_NAME", "INVALID_FIELD",
                "BAD_PAYLOAD", "OVERSIZED", "LATE_TURN", "INTERNAL")) {
            assertThat(contract).as("dead-letter code " + code).contains("| `" + code + "` |");
        }
        try (Stream<Path> schemas = Files.list(root.resolve("schemas/src/main/avro"))) {
            schemas.filter(p -> p.toString().endsWith(".avsc"))
                    .forEach(p -> assertThat(contract).contains("(../schemas/src/main/avro/" + p.getFileName() + ")"));
        }
    }

    private Set<String> markdownNames() throws IOException {
        Set<String> names = new HashSet<>();
        markdownFiles().forEach(p -> names.add(p.getFileName().toString()));
        return names;
    }

    /** The repository's Markdown files, without build output, installed packages or Git's own files. */
    private List<Path> markdownFiles() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        String relative = root.relativize(p).toString().replace('\\', '/');
                        return !relative.matches("(.*/)?(target|node_modules|\\.git)/.*");
                    })
                    .sorted().toList();
        }
    }

    /** The targets of the inline links {@code [text](target)} and reference definitions {@code [ref]: target}, outside code. */
    static List<String> links(String markdown) {
        String prose = withoutCode(markdown);
        List<String> targets = new ArrayList<>();
        Matcher inline = LINK.matcher(prose);
        while (inline.find()) {
            targets.add(inline.group(1));
        }
        Matcher reference = REFERENCE.matcher(prose);
        while (reference.find()) {
            targets.add(reference.group(1));
        }
        return targets;
    }

    /** GitHub's anchors for a page: each heading lower-cased, punctuation dropped, spaces as dashes, repeats numbered. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        Matcher heading = HEADING.matcher(markdown.replaceAll("(?ms)^\\s*```.*?^\\s*```", ""));
        while (heading.find()) {
            String slug = heading.group(1).replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        Matcher explicit = Pattern.compile("<a (?:id|name)=\"([^\"]+)\"").matcher(markdown);
        while (explicit.find()) {
            anchors.add(explicit.group(1));
        }
        return anchors;
    }

    /** The text without fenced blocks and inline code spans, where brackets are not links. */
    private static String withoutCode(String markdown) {
        return markdown.replaceAll("(?ms)^\\s*```.*?^\\s*```", "").replaceAll("`[^`\n]*`", "");
    }

    @Test
    void shouldNameOnlyPackagesThatExist() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Path document : List.of(root.resolve("README.md"), root.resolve("docs/architecture.md"))) {
            Matcher m = PACKAGE.matcher(read(document));
            while (m.find()) {
                if (!packageExists(m.group())) {
                    missing.add(root.relativize(document) + ": " + m.group());
                }
            }
        }
        assertThat(missing).as("packages named in the docs that no module has").isEmpty();
    }

    @Test
    void shouldNameOnlyEngineCodeThatExistsInTheRuleTable() throws IOException {
        List<String> rows = read(root.resolve("README.md")).lines()
                .filter(l -> l.matches("^\\| R\\d+ .*")).toList();
        assertThat(rows).as("rows R1–R11 of the rule table").hasSize(11);
        Path engine = root.resolve("engine/src/main/java/dev/baton/engine");
        List<String> missing = new ArrayList<>();
        for (String row : rows) {
            String[] cells = row.split("\\|");
            Matcher m = CODE.matcher(cells[cells.length - 1]);
            while (m.find()) {
                String path = m.group(1).replace('.', '/');
                if (!Files.isDirectory(engine.resolve(path)) && !Files.isRegularFile(engine.resolve(path + ".java"))) {
                    missing.add(cells[1].trim() + ": " + m.group(1));
                }
            }
        }
        assertThat(missing).as("code named in the rule table that is not in dev.baton.engine").isEmpty();
    }

    @Test
    void shouldNameOnlyClassesThatExistInTheArchitecture() throws IOException {
        List<String> missing = new ArrayList<>();
        int checked = 0;
        // fenced blocks (the dependency drawing) are not names: without them every other pair of backticks is code
        Matcher m = CODE.matcher(read(root.resolve("docs/architecture.md")).replaceAll("(?s)```.*?```", ""));
        while (m.find()) {
            String name = m.group(1);
            if (!name.matches("[A-Z][A-Za-z0-9]*(\\.[a-z][A-Za-z]*)?")) {
                continue; // a module, a package, a topic or a store, not a class
            }
            if (name.matches("[A-Z][A-Z0-9_]*")) {
                continue; // a constant or an enum symbol (a dead-letter code such as INTERNAL), not a class
            }
            String type = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
            checked++;
            if (!classExists(type)) {
                missing.add(name);
            }
        }
        assertThat(checked).as("classes named in docs/architecture.md").isGreaterThan(20);
        assertThat(missing).as("classes named in docs/architecture.md that do not exist").isEmpty();
    }

    private boolean packageExists(String name) {
        String path = name.replace('.', '/');
        return MODULES.stream().anyMatch(module -> Files.isDirectory(root.resolve(module + "/src/main/java/" + path))
                || Files.isDirectory(root.resolve(module + "/src/test/java/" + path)));
    }

    /** A Java source of that name in any module, or a schema the classes of dev.baton.avro are generated from. */
    private boolean classExists(String type) {
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(root.resolve(module + "/src"))) {
                if (files.anyMatch(p -> p.getFileName().toString().equals(type + ".java")
                        || p.getFileName().toString().equals(type + ".avsc"))) {
                    return true;
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return false;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
