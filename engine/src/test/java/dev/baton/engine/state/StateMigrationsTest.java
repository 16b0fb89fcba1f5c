package dev.baton.engine.state;

import dev.baton.engine.snapshot.InputRange;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every older version brought to the current one by {@link StateMigrations}, from the committed samples
 * (src/test/resources/state/): what is stored afterwards is the current version, and the session behaves as the
 * scenario's events applied afresh.
 */
class StateMigrationsTest {
    /** Version 2's range store value for {@link StoredFormatGoldenTest#RANGE}'s Kafka half. */
    private static final byte[] FORMER_RANGE = formerRange("baton.session-events", 3, 1_000L, 1_070L);
    private static final InputRange KAFKA_HALF = new InputRange("baton.session-events", 3, 1_000L, 1_070L, null, null);

    @Test
    void shouldMigrateAVersion1BlobToCurrentEntriesIdsAndSkeleton() throws IOException {
        byte[] blob = Files.readAllBytes(StoredFormatGoldenTest.V1);
        StateStorage.InMemory store = new StateStorage.InMemory();

        StateMigrations.Current c = StateMigrations.load(blob, store, store.ids, () -> FORMER_RANGE);

        assertThat(c.storedVersion()).isEqualTo(1);
        assertThat(c.blobToReplace()).isTrue();
        assertThat(c.rangeFromFormerStore()).isTrue();
        assertThat(c.state().inputRange()).isEqualTo(KAFKA_HALF);
        assertThat(store.ids.entries()).containsValues("h-1", "h-2", "h-3");
        assertThat(versionsOf(store)).isNotEmpty().containsOnly((int) StateFormat.VERSION);
        storeAndReload(c.state(), store);
    }

    @Test
    void shouldMigrateAVersion2SessionWithTheRangeOfItsFormerStore() throws IOException {
        StateStorage.InMemory store = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V2));

        StateMigrations.Current c = StateMigrations.load(store.skeleton, store, store.ids, () -> FORMER_RANGE);

        assertThat(c.storedVersion()).isEqualTo(2);
        assertThat(c.blobToReplace()).isFalse();
        assertThat(c.rangeFromFormerStore()).isTrue();
        storeAndReload(c.state(), store);
    }

    @Test
    void shouldMigrateAVersion2SessionWhoseFormerStoreHasNoRange() throws IOException {
        StateStorage.InMemory store = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V2));
        StateMigrations.Current c = StateMigrations.load(store.skeleton, store, store.ids, () -> null);
        assertThat(c.rangeFromFormerStore()).isFalse();
        assertThat(c.state().inputRange()).isNull();
    }

    @Test
    void shouldLoadTheCurrentVersionWithoutLookingForAFormerRange() throws IOException {
        StateStorage.InMemory store = StoredFormatGoldenTest.read(Files.readAllBytes(StoredFormatGoldenTest.V3));
        Supplier<byte[]> never = () -> {
            throw new AssertionError("a version-3 session has its range in its skeleton");
        };
        StateMigrations.Current c = StateMigrations.load(store.skeleton, store, store.ids, never);
        assertThat(c.storedVersion()).isEqualTo(3);
        assertThat(c.rangeFromFormerStore()).isFalse();
        assertThat(c.state().inputRange()).isEqualTo(StoredFormatGoldenTest.RANGE);
    }

    @Test
    void shouldReadAVersion1BlobWithoutWritingAnything() throws IOException {
        StateStorage.InMemory store = new StateStorage.InMemory();
        SessionState s = StateMigrations.read(Files.readAllBytes(StoredFormatGoldenTest.V1), store, store.ids);
        assertThat(s.rememberedHandoffIds()).isEqualTo(3);
        assertThat(versionsOf(store)).isEmpty();
        assertThat(store.ids.entries()).isEmpty();
    }

    @Test
    void shouldRefuseAnUnknownVersionLoudly() {
        assertThatThrownBy(() -> StateMigrations.readerOf(new byte[]{9, 0}, "turn entry"))
                .hasMessageContaining("turn entry format version 9 is not supported here");
    }

    /** Stores the migrated state: a current skeleton holding the range; read back, it behaves as the events. */
    private static void storeAndReload(SessionState migrated, StateStorage.InMemory store) {
        store.skeleton = StateStorage.flush(migrated, store);
        assertThat(StateFormat.versionOf(store.skeleton)).isEqualTo(StateFormat.VERSION);
        assertThat(StateMigrations.keepsRangeApart(store.skeleton)).isFalse();
        SessionState reloaded = store.load();
        assertThat(reloaded.inputRange()).isEqualTo(KAFKA_HALF);
        assertThat(StoredFormatGoldenTest.behaviour(reloaded))
                .isEqualTo(StoredFormatGoldenTest.behaviour(StoredFormatGoldenTest.fresh()));
    }

    private static List<Integer> versionsOf(StateStorage.InMemory store) {
        List<Integer> versions = new ArrayList<>();
        store.scan((kind, number, value) -> versions.add((int) value[0]));
        return versions;
    }

    /** A value of version 2's range store with a Kafka half only, written from its documented layout. */
    static byte[] formerRange(String topic, int partition, long firstOffset, long lastOffset) {
        byte[] t = topic.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 4 + t.length + 4 + 16).put((byte) 1).put((byte) 1).putInt(t.length).put(t)
                .putInt(partition).putLong(firstOffset).putLong(lastOffset).array();
    }
}
