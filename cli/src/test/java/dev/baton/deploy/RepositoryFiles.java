package dev.baton.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/** Finds files at the repository root from a test (which runs in topology/) and reads YAML. */
final class RepositoryFiles {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private RepositoryFiles() {
    }

    /** The repository root: the nearest directory upwards that holds docker-compose.yml. */
    static Path root() {
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docker-compose.yml")) && Files.isDirectory(dir.resolve("deploy"))) {
                return dir;
            }
        }
        throw new IllegalStateException("repository root (with docker-compose.yml) not found above " + Paths.get("").toAbsolutePath());
    }

    static JsonNode yaml(Path file) {
        try {
            return YAML.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every document of a multi-document YAML file. */
    static List<JsonNode> yamlDocuments(String text) {
        try (var parser = YAML.getFactory().createParser(text)) {
            List<JsonNode> documents = new ArrayList<>();
            var iterator = YAML.readValues(parser, JsonNode.class);
            while (iterator.hasNext()) {
                JsonNode document = iterator.next();
                if (document != null && !document.isMissingNode() && !document.isNull()) {
                    documents.add(document);
                }
            }
            return documents;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
