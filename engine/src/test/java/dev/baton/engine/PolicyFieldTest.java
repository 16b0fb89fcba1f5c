package dev.baton.engine;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.policy.PolicyField;
import dev.baton.engine.tokens.Tokenizers;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyFieldTest {

    @Test
    void shouldHaveOneRowPerPolicyValueInOrderNamedInSnakeCase() {
        RecordComponent[] components = Policy.class.getRecordComponents();
        assertThat(PolicyField.values()).hasSameSizeAs(components);
        for (int i = 0; i < components.length; i++) {
            String snake = components[i].getName().replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
            assertThat(PolicyField.values()[i].key()).isEqualTo(snake);
        }
    }

    @Test
    void shouldSetAndGetEveryValue() {
        Policy.Builder b = Policy.defaults().toBuilder();
        for (PolicyField f : PolicyField.values()) {
            f.set(b, f.type() == PolicyField.Type.TEXT ? (Object) ("x-" + f.key()) : (Object) (f.min() + 7L));
        }
        Policy p = b.build();
        for (PolicyField f : PolicyField.values()) {
            Object v = f.get(p);
            if (f.type() == PolicyField.Type.TEXT) assertThat(v).isEqualTo("x-" + f.key());
            else assertThat(((Number) v).longValue()).as(f.key()).isEqualTo(f.min() + 7L);
        }
    }

    /** Knows o200k_base only (counting is not asked here). */
    private static final Tokenizers O200K = new Tokenizers() {
        @Override
        public dev.baton.engine.tokens.Tokenizer get(String encoding) {
            if (!encoding.equals("o200k_base")) return null;
            return new dev.baton.engine.tokens.Tokenizer() {
                @Override
                public String encoding() {
                    return encoding;
                }

                @Override
                public int count(String text) {
                    return text.length();
                }
            };
        }

        @Override
        public java.util.Set<String> encodings() {
            return java.util.Set.of("o200k_base");
        }
    };

    @Test
    void shouldFindTheContractDefaultsValidAndNameEveryValueOutOfBounds() {
        assertThat(Policy.defaults().problems(O200K)).isEmpty();
        Policy bad = Policy.defaults().toBuilder().maxWaitingHandoffs(0).maxHeldBytes(-1).brickMaxAgents(0).build();
        assertThat(bad.problems(O200K)).containsExactly("brick_max_agents is 0; must be > 0",
                "max_held_bytes is -1; must be >= 0", "max_waiting_handoffs is 0; must be > 0");
        assertThat(Policy.defaults().toBuilder().tokenCountEncodings("abc").build().problems(O200K))
                .containsExactly("unknown token encoding(s) 'abc'; expected one of o200k_base");
    }
}
