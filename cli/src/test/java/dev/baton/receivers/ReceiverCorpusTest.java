package dev.baton.receivers;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The receiver dialects of docs/receivers.md on real hand-offs: every recorded run of {@code ../shared/recorded} and
 * the generated sessions, rendered by the real topology ({@link ReceiverCorpus}).
 */
class ReceiverCorpusTest {
    private static RecordedCorpus recorded;
    private static List<ReceiverCorpus.Part> parts;

    @BeforeAll
    static void render() throws IOException {
        parts = ReceiverCorpus.renderAll(SharedFolder.require());
        recorded = ReceiverCorpus.recorded();
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
    void shouldWriteTrimmingMarkersDigestsAndManifestsUnderTheTightPolicy() {
        List<String> kinds = parts.stream().flatMap(p -> p.parsed().stream())
                .flatMap(s -> s.path("truncations").findValuesAsText("kind").stream()).distinct().toList();
        assertThat(kinds).contains("TRAIL_MANIFEST", "TRANSCRIPT_MIDDLE_SUMMARIZED", "SEGMENT_TRIMMED");
    }

    @Test
    void shouldRenderEveryPlannedHandoffThroughTheTopology() {
        for (ReceiverCorpus.Part part : parts) {
            System.out.printf("%s: %d snapshots of %d hand-offs%n", part.file(), part.snapshots().size(),
                    part.plannedHandoffs());
            assertThat(part.deadLetters()).as(part.file().toString()).isEmpty();
            assertThat(part.snapshots()).hasSize(part.plannedHandoffs());
        }
    }
}
