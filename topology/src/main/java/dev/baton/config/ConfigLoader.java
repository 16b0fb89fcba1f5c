package dev.baton.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;

/**
 * Loads {@link BatonConfig} for the command line: the {@code --config} file (or {@code BATON_CONFIG}),
 * then the {@code BATON_*} environment, then the flags; configuration errors become exit code 2 with
 * {@link BatonConfig}'s message (which names where each value came from).
 */
public final class ConfigLoader {

    /** {@code BATON_*} variables that the launcher and the command line read: not settings. */
    public static final Set<String> COMMAND_LINE_VARIABLES = Set.of("BATON_DEBUG", "BATON_LOG_LEVEL", "BATON_NO_BUILD",
            "BATON_STDERR_TTY");

    private ConfigLoader() {
    }

    /** A builder with the file and the environment applied; the caller adds flags and builds. */
    public static BatonConfig.Builder builder(Path configFlag, Map<String, String> environment) {
        BatonConfig.Builder builder = BatonConfig.builder();
        Path file = BatonConfig.configFile(configFlag, environment);
        try {
            if (file != null) {
                if (!Files.isRegularFile(file)) {
                    throw new AppFailure(ExitCodes.USAGE, "the configuration file " + file + " does not exist");
                }
                builder.file(file);
            }
            builder.environment(settingsOnly(environment));
        } catch (BatonConfigException e) {
            throw new AppFailure(ExitCodes.USAGE, "configuration: " + e.getMessage(), e);
        }
        return builder;
    }

    /** Builds, turning a configuration error into exit code 2. */
    public static BatonConfig build(BatonConfig.Builder builder) {
        return attempt(b -> b.build(), builder);
    }

    /** Applies one step (e.g. a flag), turning a configuration error into exit code 2. */
    public static <T> T attempt(Function<BatonConfig.Builder, T> step, BatonConfig.Builder builder) {
        try {
            return step.apply(builder);
        } catch (BatonConfigException e) {
            throw new AppFailure(ExitCodes.USAGE, "configuration: " + e.getMessage(), e);
        }
    }

    /** The environment without the command line's own {@code BATON_*} variables. */
    public static Map<String, String> settingsOnly(Map<String, String> environment) {
        Map<String, String> out = new HashMap<>(environment);
        COMMAND_LINE_VARIABLES.forEach(out::remove);
        return out;
    }
}
