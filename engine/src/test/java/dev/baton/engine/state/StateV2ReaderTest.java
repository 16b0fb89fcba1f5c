package dev.baton.engine.state;

import dev.baton.engine.snapshot.InputRange;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reader of version 2 on the committed sample of that version (src/test/resources/state/), and on values of
 * version 2's store of input ranges written from its documented layout.
 */
class StateV2ReaderTest {
    private final StateReader reader = StateV2Reader.INSTANCE;

    @Test
    void shouldReadTheSampleSkeletonWithoutAnInputRange() throws IOException {
        StateStorage.InMemory sample = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V2));
        StateReader.Skeleton sk = reader.skeleton(sample.skeleton);
        assertThat(sk.state().inputRange()).isNull();
        assertThat(sk.headUserSeq()).isZero();
        assertThat(sk.headAssistantSeq()).isEqualTo(1);
        assertThat(sk.state().waitingHandoffs()).isEqualTo(1);
    }

    /** Version 2's entries have version 3's layout: read as version 2, written as version 3, only the first byte differs. */
    @Test
    void shouldReadTheSampleEntriesAsTheCurrentLayoutWithAnotherVersionByte() throws IOException {
        StateStorage.InMemory sample = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V2));
        int[] seen = new int[1];
        sample.scan((kind, number, value) -> {
            byte[] current = switch (kind) {
                case TURN -> StateFormat.encodeTurn(reader.turn(value));
                case HELD -> StateFormat.encodeHeld(reader.held(value));
                case DIGEST -> StateFormat.encodeDigest(number, reader.digest(value).line());
                case TRAIL -> StateFormat.encodeTrail(reader.trail(value));
                case CALL -> StateFormat.encodeCall(reader.call(value));
                // Kinds added after version 2 was written have no version-2 layout.
                default -> throw new AssertionError("a version-2 sample holds no " + kind + " entry");
            };
            assertThat(current[0]).isEqualTo(StateFormat.VERSION);
            assertThat(Arrays.copyOfRange(current, 1, current.length)).as("%s %s", kind, number)
                    .isEqualTo(Arrays.copyOfRange(value, 1, value.length));
            seen[0]++;
        });
        assertThat(seen[0]).isPositive();
    }

    @Test
    void shouldReadTheFormerRangeStoresValuesOfBothHalves() {
        byte[] topic = "baton.session-events".getBytes(StandardCharsets.UTF_8);
        byte[] both = ByteBuffer.allocate(2 + 4 + topic.length + 4 + 16 + 16).put((byte) 1).put((byte) 3)
                .putInt(topic.length).put(topic).putInt(3).putLong(1_000L).putLong(1_070L).putLong(7L).putLong(70L)
                .array();
        assertThat(StateV2Reader.formerRange(both)).isEqualTo(StoredFormatGoldenTest.RANGE);
        byte[] lines = ByteBuffer.allocate(2 + 16).put((byte) 1).put((byte) 2).putLong(1L).putLong(9L).array();
        assertThat(StateV2Reader.formerRange(lines)).isEqualTo(new InputRange(null, null, null, null, 1L, 9L));
        assertThat(StateV2Reader.formerRange(null)).isNull();
        assertThatThrownBy(() -> StateV2Reader.formerRange(new byte[]{2, 0})).hasMessageContaining("version 2");
    }

    @Test
    void shouldRefuseAValueOfAnotherVersion() throws IOException {
        StateStorage.InMemory sample = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V3));
        assertThatThrownBy(() -> reader.skeleton(sample.skeleton)).hasMessageContaining("version-3");
    }
}
