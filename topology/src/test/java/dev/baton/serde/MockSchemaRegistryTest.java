package dev.baton.serde;

import dev.baton.avro.ContextSnapshot;
import dev.baton.avro.SessionEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MockSchemaRegistryTest {
    private final String scope = "mock-registry-test-" + System.nanoTime();

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
        MockSchemaRegistry.dropScope(scope + "-other");
    }

    @Test
    void shouldAssignSequentialIdsAndReuseThemForTheSameSchema() {
        SchemaRegistryClient registry = SchemaRegistries.forUrl("mock://" + scope);
        int first = registry.register("a-value", SessionEvent.getClassSchema());
        int second = registry.register("b-value", ContextSnapshot.getClassSchema());
        int again = registry.register("c-value", SessionEvent.getClassSchema());

        assertThat(first).isEqualTo(1);
        assertThat(second).isEqualTo(2);
        assertThat(again).isEqualTo(first);
        assertThat(registry.getById(second)).isEqualTo(ContextSnapshot.getClassSchema());
        assertThat(((MockSchemaRegistry) registry).versions("c-value")).containsExactly(1);
    }

    @Test
    void shouldShareOneRegistryPerScopeAndIsolateScopes() {
        SchemaRegistries.forUrl("mock://" + scope).register("s-value", SessionEvent.getClassSchema());

        assertThat(SchemaRegistries.forUrl("mock://" + scope).getById(1)).isEqualTo(SessionEvent.getClassSchema());
        assertThatThrownBy(() -> SchemaRegistries.forUrl("mock://" + scope + "-other").getById(1))
                .isInstanceOf(UnknownSchemaIdException.class);
    }

    @Test
    void shouldForgetADroppedScope() {
        MockSchemaRegistry.forScope(scope).register("s-value", SessionEvent.getClassSchema());
        MockSchemaRegistry.dropScope(scope);

        assertThatThrownBy(() -> MockSchemaRegistry.forScope(scope).getById(1)).isInstanceOf(UnknownSchemaIdException.class);
    }

    @Test
    void shouldRejectUnsupportedUrls() {
        assertThatThrownBy(() -> SchemaRegistries.forUrl("ftp://x")).hasMessageContaining("mock://NAME");
        assertThatThrownBy(() -> SchemaRegistries.forUrl("mock://")).hasMessageContaining("scope");
        assertThat(SchemaRegistries.forUrl("http://localhost:1/apis/ccompat/v7")).isInstanceOf(HttpSchemaRegistryClient.class);
    }
}
