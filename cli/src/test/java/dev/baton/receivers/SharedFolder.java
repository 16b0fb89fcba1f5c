package dev.baton.receivers;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared third-party data, read in place: {@code <repository>/../shared}, or {@code SHARED_DATA_DIR}. Missing,
 * it skips the test, except under {@code CI=true}, where it fails it (CI clones the repository with shared/ beside it).
 */
final class SharedFolder {
    private SharedFolder() {
    }

    /** The repository's root (the tests run in cli/). */
    static Path repository() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("cli")) ? here : here.getParent();
    }

    static Path require() {
        String env = System.getenv("SHARED_DATA_DIR");
        Path shared = env != null && !env.isBlank() ? Path.of(env) : repository().resolve("../shared").normalize();
        if (!Files.isDirectory(shared.resolve("recorded"))) {
            String why = "the shared data is missing: " + shared.resolve("recorded")
                    + " (set SHARED_DATA_DIR to the folder that holds recorded/)";
            if ("true".equals(System.getenv("CI"))) throw new AssertionError(why);
            Assumptions.abort(why);
        }
        return shared;
    }
}
