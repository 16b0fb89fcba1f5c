package dev.baton.config;

import dev.baton.engine.policy.Policy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatonConfigTest {
    private static final Map<String, String> JSON = Map.of(BatonConfig.FORMAT, "json");

    @Test
    void shouldHaveProductionDefaults() {
        BatonConfig c = BatonConfig.of(JSON);
        Properties p = c.toStreamsProperties();
        assertThat(p).containsEntry("processing.guarantee", "exactly_once_v2")
                .containsEntry("replication.factor", "3")
                .containsEntry("num.standby.replicas", "1")
                .containsEntry("commit.interval.ms", "100")
                .containsEntry("application.id", "baton")
                .containsEntry("ensure.explicit.internal.resource.naming", "true")
                .containsEntry("errors.dead.letter.queue.topic.name", "baton.dead-letters");
        assertThat(p.keySet()).noneMatch(k -> k.toString().startsWith("baton."));
        assertThat(c.sessionEventsTopic()).isEqualTo("baton.session-events");
        assertThat(c.punctuateInterval()).hasSeconds(1);
        assertThat(c.wallClockPunctuation()).isTrue();
        assertThat(c.defaultPolicy()).isEqualTo(Policy.defaults());
    }

    @Test
    void shouldLetFlagsWinOverEnvironmentOverFileOverDefaults(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("baton.properties");
        Files.writeString(file, """
                bootstrap.servers=file:9092
                baton.format=json
                baton.topic.dead-letters=file-dlq
                baton.http.port=9000
                security.protocol=SSL
                """);
        BatonConfig c = BatonConfig.builder().file(file)
                .environment(Map.of("BATON_BOOTSTRAP_SERVERS", "env:9092", "BATON_HTTP_PORT", "9001",
                        "PATH", "/usr/bin", "BATON_SSL_TRUSTSTORE_LOCATION", "/etc/trust.jks"))
                .flag("--bootstrap-servers", "flag:9092")
                .build();
        assertThat(c.get("bootstrap.servers")).isEqualTo("flag:9092");
        assertThat(c.origin("bootstrap.servers")).isEqualTo("flag --bootstrap-servers");
        assertThat(c.httpPort()).isEqualTo(9001);
        assertThat(c.origin("baton.http.port")).isEqualTo("environment BATON_HTTP_PORT");
        assertThat(c.deadLettersTopic()).isEqualTo("file-dlq");
        assertThat(c.get("errors.dead.letter.queue.topic.name")).isEqualTo("file-dlq");
        assertThat(c.toStreamsProperties()).containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.truststore.location", "/etc/trust.jks");
        assertThat(c.origin("processing.guarantee")).isEqualTo("built-in default");
    }

    @Test
    void shouldLoadTheFileNamedByBatonConfigWhenNoFlagNamesOne(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("env.properties");
        Files.writeString(file, "baton.format=json\nbaton.http.port=7000\n");
        Map<String, String> flags = new java.util.HashMap<>();
        flags.put("--http-port", null); // not given
        flags.put("--bootstrap-servers", "flag:9092");
        BatonConfig c = BatonConfig.load(null, Map.of("BATON_CONFIG", file.toString()), flags);
        assertThat(c.httpPort()).isEqualTo(7000);
        assertThat(c.origin("baton.http.port")).isEqualTo("file " + file);
        assertThat(c.get("bootstrap.servers")).isEqualTo("flag:9092");
    }

    @Test
    void shouldMapEnvironmentNamesOfBatonSettings() {
        BatonConfig c = BatonConfig.builder().environment(Map.of("BATON_FORMAT", "JSON",
                "BATON_TOPIC_SESSION_EVENTS", "in", "BATON_PUNCTUATE_WALL_CLOCK", "false",
                "BATON_POLICY_TRANSCRIPT_BUDGET_CHARS", "50000", "BATON_CONFIG", "ignored-here")).build();
        assertThat(c.format()).isEqualTo(BatonConfig.Format.JSON);
        assertThat(c.sessionEventsTopic()).isEqualTo("in");
        assertThat(c.wallClockPunctuation()).isFalse();
        assertThat(c.defaultPolicy().transcriptBudgetChars()).isEqualTo(50_000);
    }

    @Test
    void shouldRejectAnUnknownBatonKeyNamingItsSource(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("x.properties");
        Files.writeString(file, "baton.formatt=json\n");
        assertThatThrownBy(() -> BatonConfig.builder().file(file).build())
                .isInstanceOf(BatonConfigException.class)
                .hasMessageContaining("baton.formatt").hasMessageContaining("file " + file);
        assertThatThrownBy(() -> BatonConfig.builder().environment(Map.of("BATON_FROMAT", "json")).build())
                .isInstanceOf(BatonConfigException.class).hasMessageContaining("BATON_FROMAT");
    }

    @Test
    void shouldRejectANonNumericNumber() {
        assertThatThrownBy(() -> BatonConfig.builder().set(BatonConfig.FORMAT, "json")
                .flag("--http-port", "eighty").build())
                .isInstanceOf(BatonConfigException.class)
                .hasMessageContaining("baton.http.port=eighty").hasMessageContaining("flag --http-port");
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", "replication.factor", "three")))
                .isInstanceOf(BatonConfigException.class).hasMessageContaining("replication.factor");
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "xml")))
                .isInstanceOf(BatonConfigException.class).hasMessageContaining("avro, json");
    }

    @Test
    void shouldRejectAValueOutsideItsBoundsOrTypeNamingThem() {
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", BatonConfig.HTTP_PORT, "70000")))
                .isInstanceOf(BatonConfigException.class)
                .hasMessage("baton.http.port=70000 (from code) is out of range 0..65535");
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json",
                BatonConfig.PUNCTUATE_WALL_CLOCK, "yes")))
                .isInstanceOf(BatonConfigException.class)
                .hasMessage("baton.punctuate.wall-clock=yes (from code) is not a boolean (true or false)");
        assertThat(BatonConfig.of(Map.of(BatonConfig.FORMAT, " JSON ", BatonConfig.PUNCTUATE_WALL_CLOCK, "FALSE"))
                .wallClockPunctuation()).isFalse();
    }

    @Test
    void shouldRejectContradictorySettingsNamingBothSources(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "baton.format=json\nbaton.topic.session-events=shared\n");
        assertThatThrownBy(() -> BatonConfig.builder().file(file)
                .environment(Map.of("BATON_TOPIC_CONTEXT_SNAPSHOTS", "shared")).build())
                .isInstanceOf(BatonConfigException.class)
                .hasMessageContaining("file " + file)
                .hasMessageContaining("environment BATON_TOPIC_CONTEXT_SNAPSHOTS");
        assertThatThrownBy(() -> BatonConfig.builder().environment(Map.of("BATON_FORMAT", "avro")).build())
                .isInstanceOf(BatonConfigException.class)
                .hasMessageContaining("environment BATON_FORMAT").hasMessageContaining("schema-registry.url");
    }

    @Test
    void shouldAcceptJsonWithARegistryUrlAndAvroWithOne() {
        assertThat(BatonConfig.builder().flag("--format", "json").flag("--schema-registry-url", "mock://x").build()
                .format()).isEqualTo(BatonConfig.Format.JSON);
        assertThat(BatonConfig.builder().flag("--schema-registry-url", "http://registry:8081").build()
                .schemaRegistryUrl()).contains("http://registry:8081");
    }

    @Test
    void shouldBuildTheDefaultPolicyFromOverrides() {
        BatonConfig c = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json",
                "baton.policy.gap_wait_millis", "5000", "baton.policy.continuity_framing_prompt", "Go on, {agent}."));
        assertThat(c.defaultPolicy().gapWaitMillis()).isEqualTo(5000);
        assertThat(c.defaultPolicy().continuityFramingPrompt()).isEqualTo("Go on, {agent}.");
        assertThat(c.defaultPolicy().transcriptBudgetChars()).isEqualTo(400_000);
    }

    @Test
    void shouldRefuseAnUnknownTokenEncodingInTheDefaultPolicy() {
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json",
                "baton.policy.token_count_encodings", "o200k_base,cl100k")))
                .isInstanceOf(BatonConfigException.class).hasMessageContaining("'cl100k'");
        BatonConfig ok = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json",
                "baton.policy.transcript_budget_tokens", "100000", "baton.policy.token_count_encodings", "cl100k_base"));
        assertThat(ok.defaultPolicy().transcriptBudgetTokens()).isEqualTo(100_000);
        assertThat(ok.defaultPolicy().transcriptBudgetEncoding()).isEqualTo("o200k_base");
        assertThat(ok.defaultPolicy().tokenCountEncodingList()).containsExactly("cl100k_base");
    }

    @Test
    void shouldSetTheProducerAndChangelogLimitsToTheMaxOutputBytes() {
        BatonConfig c = BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json"));
        assertThat(c.maxOutputBytes()).isEqualTo(8 * 1024 * 1024);
        assertThat(c.toStreamsProperties()).containsEntry("max.request.size", "8388608")
                .containsEntry("topic.max.message.bytes", "8388608");
        BatonConfig larger = BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json",
                BatonConfig.MAX_OUTPUT_BYTES, "16777216"));
        assertThat(larger.toStreamsProperties()).containsEntry("max.request.size", "16777216");
    }

    @Test
    void shouldGiveReplicatedChangelogsAMinimumInSyncReplicaCountThatToleratesOneLoss() {
        // the default replication factor is 3: a changelog write needs 2 replicas, one broker may be down
        assertThat(BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json")).toStreamsProperties())
                .containsEntry("replication.factor", "3").containsEntry("topic.min.insync.replicas", "2");
        assertThat(BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json", "replication.factor", "2"))
                .toStreamsProperties()).containsEntry("topic.min.insync.replicas", "1");
        // one replica, or the broker's default: left to the broker
        assertThat(BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json", "replication.factor", "1"))
                .toStreamsProperties()).doesNotContainKey("topic.min.insync.replicas");
        assertThat(BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json", "replication.factor", "-1"))
                .toStreamsProperties()).doesNotContainKey("topic.min.insync.replicas");
        // set explicitly: kept
        assertThat(BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json", "topic.min.insync.replicas", "3"))
                .toStreamsProperties()).containsEntry("topic.min.insync.replicas", "3");
    }

    @Test
    void shouldRefuseAProducerLimitBelowTheMaxOutputBytes() {
        assertThatThrownBy(() -> BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json",
                "max.request.size", "1048576")))
                .isInstanceOf(BatonConfigException.class)
                .hasMessageContaining("max.request.size=1048576").hasMessageContaining(BatonConfig.MAX_OUTPUT_BYTES);
    }

    @Test
    void shouldRefuseADefaultPolicyWhoseSnapshotsCannotFit() {
        assertThatThrownBy(() -> BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json",
                "baton.policy.transcript_budget_chars", "2000000")))
                .isInstanceOf(BatonConfigException.class)
                .hasMessageContaining("default policy").hasMessageContaining(BatonConfig.MAX_OUTPUT_BYTES);
        assertThatThrownBy(() -> BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json",
                BatonConfig.MAX_OUTPUT_BYTES, "1048576")))
                .isInstanceOf(BatonConfigException.class).hasMessageContaining("default policy");
        // the same budget fits when the limit is raised
        assertThat(BatonConfig.of(java.util.Map.of(BatonConfig.FORMAT, "json",
                "baton.policy.transcript_budget_chars", "2000000", BatonConfig.MAX_OUTPUT_BYTES, "33554432"))
                .defaultPolicy().transcriptBudgetChars()).isEqualTo(2_000_000);
    }
}
