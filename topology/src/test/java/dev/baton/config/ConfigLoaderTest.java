package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;

/** Loading the configuration for a command: its precedence and its errors as exit codes. */
class ConfigLoaderTest {

    @Test
    void shouldKeepTheCommandLinesOwnVariablesAwayFromTheSettings() {
        Map<String, String> env = Map.of("BATON_DEBUG", "1", "BATON_STDERR_TTY", "0", "BATON_LOG_LEVEL", "debug",
                "BATON_NO_BUILD", "1", "BATON_FORMAT", "json", "HOME", "/root");

        BatonConfig config = ConfigLoader.build(ConfigLoader.builder(null, env));

        assertThat(config.format()).isEqualTo(BatonConfig.Format.JSON);
        assertThat(config.origin(BatonConfig.FORMAT)).contains("BATON_FORMAT");
    }

    @Test
    void shouldTurnConfigurationErrorsIntoExitCode2() {
        assertThatThrownBy(() -> ConfigLoader.build(ConfigLoader.builder(null, Map.of("BATON_NO_SUCH_THING", "x"))))
                .isInstanceOfSatisfying(AppFailure.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE);
                    assertThat(e.getMessage()).contains("BATON_NO_SUCH_THING");
                });
        assertThatThrownBy(() -> ConfigLoader.builder(Path.of("/no/such/baton.properties"), Map.of()))
                .isInstanceOfSatisfying(AppFailure.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE));
    }
}
