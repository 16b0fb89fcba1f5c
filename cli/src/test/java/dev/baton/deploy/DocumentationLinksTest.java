package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README and docs/ true to the tree: every relative link points to a file that exists, every package the
 * README names exists, every code name of the "rule → code" table exists in the engine, and every class that
 * docs/architecture.md names exists.
 */
class DocumentationLinksTest {
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern PACKAGE = Pattern.compile("\\bdev\\.baton(\\.[a-z][a-z0-9]*)+\\b");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final List<String> MODULES = List.of("schemas", "consumer", "engine", "processors", "topology",
            "service", "replay", "cli", "benchmarks");

    private final Path root = RepositoryFiles.root();

    @Test
    void shouldLinkOnlyToFilesThatExist() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path document : documents) {
            Matcher m = LINK.matcher(read(document));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*") || target.startsWith("#")) {
                    continue; // a web address or an anchor in the same page
                }
                links++;
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                if (!Files.exists(document.getParent().resolve(file).normalize())) {
                    broken.add(root.relativize(document) + " → " + target);
                }
            }
        }
        assertThat(links).as("relative links found").isGreaterThan(10);
        assertThat(broken).as("links to files that do not exist").isEmpty();
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
