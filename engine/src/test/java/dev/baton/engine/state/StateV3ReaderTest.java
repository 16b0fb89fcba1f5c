package dev.baton.engine.state;

import dev.baton.engine.model.Role;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reader of version 3 (current) on the committed sample of that version (src/test/resources/state/). */
class StateV3ReaderTest {
    private final StateReader reader = StateV3Reader.INSTANCE;

    @Test
    void shouldReadTheSampleSkeletonWithItsInputRange() throws IOException {
        StateStorage.InMemory sample = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V3));
        StateReader.Skeleton sk = reader.skeleton(sample.skeleton);
        assertThat(sk.state().inputRange()).isEqualTo(StoredFormatGoldenTest.RANGE);
        assertThat(sk.headUserSeq()).isZero();
        assertThat(sk.headAssistantSeq()).isEqualTo(1);
        assertThat(sk.state().waitingHandoffs()).isEqualTo(1);
        assertThat(sk.state().primaryAgent()).isEqualTo("qwen");
    }

    @Test
    void shouldReadEveryEntryOfTheSampleUnderTheNumberItIsStoredAt() throws IOException {
        StateStorage.InMemory sample = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V3));
        List<EntryKind> kinds = new ArrayList<>();
        sample.scan((kind, number, value) -> {
            kinds.add(kind);
            long read = switch (kind) {
                case TURN -> reader.turn(value).seq;
                case HELD -> reader.held(value).seq();
                case DIGEST -> reader.digest(value).seq();
                case TRAIL -> reader.trail(value).seq;
                case CALL -> reader.call(value).ordinal();
                case PREFIX -> StateV3Reader.prefix(value).ordinal();
                case LEDGER -> {
                    CallGroup g = StateV3Reader.ledger(value, new CallLedger());
                    yield g == null ? CallLedger.COUNTERS : g.ordinal;
                }
                case LEDGER_SLOT -> StateV3Reader.ledgerSlot(value, number).slot;
            };
            assertThat(read).as("%s %s", kind, number).isEqualTo(number);
        });
        // The kinds of the release that wrote the sample; kinds added later are absent from it.
        assertThat(kinds).containsAll(List.of(EntryKind.TURN, EntryKind.HELD, EntryKind.DIGEST, EntryKind.TRAIL,
                EntryKind.CALL));
        sample.scan((kind, number, value) -> {
            if (kind == EntryKind.TURN && number == 0) {
                StoredTurn head = reader.turn(value);
                assertThat(head.role).isEqualTo(Role.USER);
                assertThat(head.text).startsWith("Fix the flaky OrderService test");
            }
        });
    }

    @Test
    void shouldRefuseAValueOfAnotherVersion() throws IOException {
        StateStorage.InMemory sample = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V2));
        assertThatThrownBy(() -> reader.skeleton(sample.skeleton)).hasMessageContaining("version-2");
    }
}
