package dev.baton.config;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.policy.PolicyField;
import dev.baton.ingest.TenantPolicyDecoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The default policy ({@code baton.policy.*}) and a tenant's policy (the topic) are checked alike (issue 21). */
class DefaultPolicyValidationTest {

    private static TenantPolicyDecoder.Result onTheTopic(String field, String json) {
        String value = "{\"tenant_id\":\"acme\",\"" + field + "\":" + json + "}";
        return TenantPolicyDecoder.json(Policy.defaults()).decode("acme".getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"max_waiting_handoffs", "brick_max_agents", "max_record_bytes"})
    void shouldRefuseAsTheDefaultPolicyWhatTheTopicRefuses(String field) {
        assertThat(onTheTopic(field, "0").kind()).isEqualTo(TenantPolicyDecoder.Kind.INVALID);

        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", "baton.policy." + field, "0")))
                .isInstanceOf(BatonConfigException.class).hasMessageContaining("baton.policy." + field);
    }

    @ParameterizedTest
    @EnumSource(PolicyField.class)
    void shouldAcceptAndRefuseTheSameBoundsInBothPlaces(PolicyField field) {
        if (field.type() == PolicyField.Type.TEXT) return; // text has no bounds; encodings: shouldRefuse... below
        String key = "baton.policy." + field.key();
        long below = field.min() - 1;
        assertThat(onTheTopic(field.key(), Long.toString(below)).kind()).as(field.key())
                .isEqualTo(TenantPolicyDecoder.Kind.INVALID);
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", key, Long.toString(below))))
                .as(key).isInstanceOf(BatonConfigException.class);

        TenantPolicyDecoder.Result atMin = onTheTopic(field.key(), Long.toString(field.min()));
        BatonConfig config = BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", key, Long.toString(field.min())));
        assertThat(atMin.kind()).as(atMin.error()).isEqualTo(TenantPolicyDecoder.Kind.VALID);
        assertThat(config.defaultPolicy()).isEqualTo(atMin.policy());
    }

    @ParameterizedTest
    @ValueSource(strings = {"transcript_budget_encoding", "token_count_encodings"})
    void shouldRefuseAnUnknownEncodingInBothPlaces(String field) {
        assertThat(onTheTopic(field, "\"gpt-4o\"").error()).contains("'gpt-4o'");
        assertThatThrownBy(() -> BatonConfig.of(Map.of(BatonConfig.FORMAT, "json", "baton.policy." + field,
                "gpt-4o"))).isInstanceOf(BatonConfigException.class).hasMessageContaining("'gpt-4o'");
    }
}
