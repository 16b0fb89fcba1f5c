package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reader of version 1 (one JSON blob per session) on the committed sample of that version. */
class StateV1ReaderTest {

    @Test
    void shouldReadEveryPartOfTheSampleBlob() throws IOException {
        SessionState s = StateV1Reader.read(Files.readAllBytes(StoredFormatGoldenTest.V1));
        assertThat(s.headUser().role).isEqualTo(Role.USER);
        assertThat(s.headUser().text).startsWith("Fix the flaky OrderService test");
        assertThat(s.headAssistant().seq).isEqualTo(1);
        assertThat(s.primaryAgent()).isEqualTo("qwen");
        assertThat(s.compacted().lines).isNotEmpty().hasSameSizeAs(s.compacted().lineSeqs);
        assertThat(s.trails()).isNotEmpty();
        assertThat(s.missingRanges()).isNotEmpty();
        // the remembered ids are in memory, ordinals 0..n-1 oldest first, for the migration to write out
        assertThat(StateStorage.rememberedIds(s)).containsExactly(java.util.Map.entry(0L, "h-1"),
                java.util.Map.entry(1L, "h-2"), java.util.Map.entry(2L, "h-3"));
        assertThat(s.inputRange()).as("version 1 kept no input range in the blob").isNull();
    }

    @Test
    void shouldRefuseAValueOfAnotherVersionOrUnreadableJson() throws IOException {
        byte[] v3 = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V3)).skeleton;
        assertThatThrownBy(() -> StateV1Reader.read(v3)).hasMessageContaining("not a v1 session state: version 3");
        byte[] broken = "\u0001{\"nextSeq\":".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> StateV1Reader.read(broken)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot decode v1 session state");
    }
}
