package dev.baton.ingest;

import dev.baton.avro.TenantPolicy;
import dev.baton.engine.policy.Policy;
import dev.baton.engine.policy.PolicyField;
import dev.baton.serde.ConfluentAvroCodec;
import dev.baton.serde.MockSchemaRegistry;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class TenantPolicyDecoderTest {
    private final String scope = "policy-test-" + System.nanoTime();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldHaveOneDocumentedOptionalFieldPerPolicyValue() {
        Schema schema = TenantPolicy.getClassSchema();
        for (PolicyField f : PolicyField.values()) {
            Schema.Field field = schema.getField(f.key());
            assertThat(field).as(f.key()).isNotNull();
            assertThat(field.doc()).as(f.key()).isNotBlank();
            assertThat(field.schema().isNullable()).as(f.key()).isTrue();
            assertThat(field.defaultVal()).as(f.key()).isEqualTo(org.apache.avro.JsonProperties.NULL_VALUE);
        }
        // one table row per Policy value, one record field per row (plus tenant_id)
        assertThat(PolicyField.values()).hasSize(Policy.class.getRecordComponents().length);
        assertThat(schema.getFields()).hasSize(PolicyField.values().length + 1);
    }

    @Test
    void shouldOverrideOnlyTheFieldsThatAreSet() {
        Policy base = Policy.defaults();
        TenantPolicyDecoder.Result r = TenantPolicyDecoder.json(base).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"transcript_budget_chars\":50000,\"gap_wait_millis\":0,\"brick_max_agents\":null}"));

        assertThat(r.kind()).as(r.error()).isEqualTo(TenantPolicyDecoder.Kind.VALID);
        assertThat(r.tenantId()).isEqualTo("acme");
        assertThat(r.policy()).isEqualTo(base.toBuilder().transcriptBudgetChars(50_000).gapWaitMillis(0).build());
    }

    @Test
    void shouldRejectOutOfRangeValuesNamingEveryOne() {
        TenantPolicyDecoder.Result r = TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"transcript_budget_chars\":0,\"max_held_bytes\":-1,\"digest_budget_chars\":0}"));

        assertThat(r.kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        assertThat(r.policy()).isNull();
        assertThat(r.error()).contains("transcript_budget_chars is 0; must be > 0")
                .contains("max_held_bytes is -1; must be >= 0")
                .doesNotContain("digest_budget_chars");
    }

    @Test
    void shouldAcceptATokenCapAndTokenCountsInKnownEncodings() {
        TenantPolicyDecoder.Result r = TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"transcript_budget_tokens\":32000,"
                        + "\"transcript_budget_encoding\":\"cl100k_base\",\"token_count_encodings\":\"o200k_base, cl100k_base\"}"));

        assertThat(r.kind()).as(r.error()).isEqualTo(TenantPolicyDecoder.Kind.VALID);
        assertThat(r.policy().transcriptBudgetTokens()).isEqualTo(32_000);
        assertThat(r.policy().transcriptBudgetEncoding()).isEqualTo("cl100k_base");
        assertThat(r.policy().tokenCountEncodingList()).containsExactly("o200k_base", "cl100k_base");
    }

    @Test
    void shouldRejectAnUnknownTokenEncoding() {
        TenantPolicyDecoder.Result cap = TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"transcript_budget_tokens\":1000,\"transcript_budget_encoding\":\"gpt-4o\"}"));
        TenantPolicyDecoder.Result counts = TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"token_count_encodings\":\"o200k_base,o200k\"}"));
        TenantPolicyDecoder.Result negative = TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"transcript_budget_tokens\":-5}"));

        assertThat(cap.kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        assertThat(cap.error()).contains("'gpt-4o'").contains("o200k_base, p50k_base");
        assertThat(counts.kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        assertThat(counts.error()).contains("'o200k'").doesNotContain("'o200k_base'");
        assertThat(negative.kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        // an encoding named without a cap is still checked: the record is wrong either way
        assertThat(TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"),
                utf8("{\"tenant_id\":\"acme\",\"transcript_budget_encoding\":\"nope\"}")).kind())
                .isEqualTo(TenantPolicyDecoder.Kind.INVALID);
    }

    @Test
    void shouldRejectUnreadableRecordsAndAKeyThatIsNotTheTenant() {
        TenantPolicyDecoder decoder = TenantPolicyDecoder.json(Policy.defaults());

        assertThat(decoder.decode(utf8("acme"), utf8("{\"tenant_id\":\"other\"}")).kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        assertThat(decoder.decode(utf8("acme"), utf8("{nope")).kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        assertThat(decoder.decode(utf8("a/b"), utf8("{\"tenant_id\":\"a/b\"}")).error()).contains("not an id");
        assertThat(decoder.decode(utf8("acme"), utf8("{\"tenant_id\":\"acme\",\"idle_ttl_millis\":\"1\"}")).error())
                .contains("idle_ttl_millis");
    }

    @Test
    void shouldTreatATombstoneAsDeleted() {
        TenantPolicyDecoder.Result r = TenantPolicyDecoder.json(Policy.defaults()).decode(utf8("acme"), null);

        assertThat(r.kind()).isEqualTo(TenantPolicyDecoder.Kind.DELETED);
        assertThat(r.tenantId()).isEqualTo("acme");
    }

    @Test
    void shouldRoundTripEveryValueThroughAvro() {
        Policy custom = Policy.defaults().toBuilder().transcriptBudgetChars(12_345).maxHeldBytes(99L)
                .continuityFramingPrompt("Go on, {agent}.").build();
        byte[] value = new ConfluentAvroCodec<>(registry, TenantPolicy.class)
                .serialize("baton.tenant-policies", TenantPolicyDecoder.toRecord("acme", custom));

        TenantPolicyDecoder.Result r = TenantPolicyDecoder.avro(registry, Policy.defaults()).decode(utf8("acme"), value);

        assertThat(r.kind()).as(r.error()).isEqualTo(TenantPolicyDecoder.Kind.VALID);
        assertThat(r.policy()).isEqualTo(custom);
    }
}
