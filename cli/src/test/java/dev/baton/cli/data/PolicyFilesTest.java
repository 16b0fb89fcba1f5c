package dev.baton.cli.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import dev.baton.avro.TenantPolicy;

class PolicyFilesTest {

    @Test
    void shouldReadYamlAndJsonPoliciesAlike() {
        TenantPolicy yaml = PolicyFiles.parse("transcript_budget_chars: 5000\nowner_framing_prompt: |\n  Be brief.\n", "acme");
        TenantPolicy json = PolicyFiles.parse("{\"transcript_budget_chars\": 5000, \"owner_framing_prompt\": \"Be brief.\\n\"}",
                "acme");
        assertThat(yaml).isEqualTo(json);
        assertThat(yaml.getTenantId()).isEqualTo("acme");
        assertThat(yaml.getTranscriptBudgetChars()).isEqualTo(5000);
        assertThat(yaml.getBrickMaxAgents()).isNull();
    }

    @Test
    void shouldRefuseUnknownFieldsWrongTypesAndAnotherTenant() {
        assertThatThrownBy(() -> PolicyFiles.parse("transcript_budget_charz: 5", "acme"))
                .hasMessageContaining("unknown field(s) transcript_budget_charz");
        assertThatThrownBy(() -> PolicyFiles.parse("transcript_budget_chars: lots", "acme"))
                .hasMessageContaining("transcript_budget_chars");
        assertThatThrownBy(() -> PolicyFiles.parse("tenant_id: globex\n", "acme")).hasMessageContaining("globex");
        assertThatThrownBy(() -> PolicyFiles.parse("- 1\n- 2\n", "acme")).hasMessageContaining("one object");
        assertThatThrownBy(() -> PolicyFiles.parse("a: [", "acme")).hasMessageContaining("not YAML or JSON");
    }

    @Test
    void shouldDiffFieldByFieldWithDefaultsNamed() {
        TenantPolicy before = PolicyFiles.parse("transcript_budget_chars: 5000\nbrick_max_agents: 3\n", "acme");
        TenantPolicy after = PolicyFiles.parse("transcript_budget_chars: 6000\nowner_framing_prompt: \"two\\nlines\"\n",
                "acme");
        assertThat(PolicyFiles.diff(before, after)).containsExactly(
                "transcript_budget_chars: 5000 -> 6000",
                "brick_max_agents: 3 -> (default)",
                "owner_framing_prompt: (default) -> \"two\\nlines\"");
        assertThat(PolicyFiles.diff(after, after)).isEmpty();
        assertThat(PolicyFiles.diff(null, before)).hasSize(2);
    }

    @Test
    void shouldPrintOnlyTheSetFieldsAsYamlThatReadsBack() {
        TenantPolicy p = PolicyFiles.parse("transcript_budget_chars: 5000\n", "acme");
        String yaml = PolicyFiles.toYaml(p);
        assertThat(yaml).isEqualTo("tenant_id: acme\ntranscript_budget_chars: 5000\n");
        assertThat(PolicyFiles.parse(yaml, "acme")).isEqualTo(p);
    }
}
