package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.baton.config.BatonConfig;

/** The small pieces behind the commands: line peeking, snapshot ids, config loading, meter names, the view. */
class CommandHelpersTest {

  @Test
  void shouldPeekTheIdsOfALineWithoutCaringAboutTheRest() {
    var peek = BackfillRunner.peek(("{\"event_id\":\"e\",\"turn\":{\"seq\":1,\"trail\":[{\"x\":[1,2]}]},"
        + "\"tenant_id\":\"t\",\"session_id\":\"s\",\"handoff\":{\"to_agent\":\"a\",\"handoff_id\":\"h\"}}")
        .getBytes(StandardCharsets.UTF_8));
    assertThat(peek.key()).isEqualTo("t/s");
    assertThat(peek.handoffId()).isEqualTo("h");
  }

  @Test
  void shouldPeekNothingFromALineThatIsNotAnObject() {
    assertThat(BackfillRunner.peek("[1,2]".getBytes(StandardCharsets.UTF_8)).key()).isNull();
    assertThat(BackfillRunner.peek("{\"tenant_id\":\"t\",".getBytes(StandardCharsets.UTF_8)).key()).isNull();
    assertThat(BackfillRunner.peek("{\"tenant_id\":7,\"session_id\":\"s\"}".getBytes(StandardCharsets.UTF_8)).key())
        .isNull();
  }

  @Test
  void shouldReadTheSnapshotIdOfASnapshotLine() {
    assertThat(BackfillRunner.snapshotIdOf("{\"snapshot_id\":\"t/s/h\",\"tenant_id\":\"t\"}"
        .getBytes(StandardCharsets.UTF_8))).isEqualTo("t/s/h");
    assertThatThrownBy(() -> BackfillRunner.snapshotIdOf("{}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(CliException.class);
  }

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
        .isInstanceOfSatisfying(CliException.class, e -> {
          assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE);
          assertThat(e.getMessage()).contains("BATON_NO_SUCH_THING");
        });
    assertThatThrownBy(() -> ConfigLoader.builder(Path.of("/no/such/baton.properties"), Map.of()))
        .isInstanceOfSatisfying(CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE));
  }

  @Test
  void shouldNameMetersLikePrometheusCounters() {
    assertThat(BatonMeters.meterName("applied-turns-total")).isEqualTo("applied.turns");
    assertThat(BatonMeters.meterName("render-total")).isEqualTo("render");
  }

  @Test
  void shouldShortenLongTextsForTheScreenOnly() {
    String text = "a".repeat(600) + "b".repeat(600);
    String shown = SnapshotPrinter.shorten(text, 300);
    assertThat(shown).startsWith("a".repeat(200)).endsWith("b".repeat(100)).contains("900 more characters");
    assertThat(SnapshotPrinter.shorten("short", 300)).isEqualTo("short");
  }
}
