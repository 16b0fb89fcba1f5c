package dev.baton.receivers;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The receiver dialects of docs/receivers.md on real hand-offs: every recorded run of {@code ../shared/recorded} and
 * the generated sessions, rendered by the real topology ({@link ReceiverCorpus}).
 */
class ReceiverCorpusTest {
    private static RecordedCorpus recorded;
    private static ReceiverCorpus.Part recordedPart;
    private static ReceiverCorpus.Part generatedPart;

    @BeforeAll
    static void render() throws IOException {
        Path shared = SharedFolder.require();
        long t0 = System.nanoTime();
        recorded = RecordedCorpus.load(shared);
        long t1 = System.nanoTime();
        Path out = ReceiverCorpus.outputDir();
        recordedPart = ReceiverCorpus.render(recorded.sessions(), out.resolve("recorded.jsonl"));
        generatedPart = ReceiverCorpus.render(GeneratedSessions.generate(ReceiverCorpus.SEED,
                ReceiverCorpus.GENERATED_SESSIONS), out.resolve("generated.jsonl"));
        System.out.printf("converted in %d ms, rendered in %d ms%n", (t1 - t0) / 1_000_000,
                (System.nanoTime() - t1) / 1_000_000);
    }

    @Test
    void shouldConvertEveryRecordedFileIntoSessionsWithTurns() throws IOException {
        recorded.files().forEach(f -> System.out.printf("%-150s %-18s sessions=%d turns=%d calls=%d%n", f.file(),
                f.format(), f.sessions(), f.turns(), f.calls()));
        assertThat(recorded.files()).allSatisfy(f -> {
            assertThat(f.sessions()).as(f.file()).isPositive();
            assertThat(f.turns()).as(f.file()).isGreaterThanOrEqualTo(f.sessions());
        });
        assertThat(recorded.files()).extracting(RecordedCorpus.FileCount::file)
                .containsExactlyInAnyOrderElementsOf(RecordedCorpus.listedFiles(SharedFolder.require()));
    }

    @Test
    void shouldRenderEveryPlannedHandoffThroughTheTopology() {
        for (ReceiverCorpus.Part part : new ReceiverCorpus.Part[]{recordedPart, generatedPart}) {
            System.out.printf("%s: %d snapshots of %d hand-offs%n", part.file(), part.snapshots().size(),
                    part.plannedHandoffs());
            assertThat(part.deadLetters()).as(part.file().toString()).isEmpty();
            assertThat(part.snapshots()).hasSize(part.plannedHandoffs());
        }
    }
}
