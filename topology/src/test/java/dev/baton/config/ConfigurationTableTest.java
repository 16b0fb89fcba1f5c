package dev.baton.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigurationTableTest {

    /** docs/configuration.md's settings table is the one {@link ConfigurationTable} writes from the ConfigDef. */
    @Test
    void shouldDocumentExactlyWhatTheConfigDefSays() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        int start = doc.indexOf(ConfigurationTable.HEADER);
        assertThat(start).as("docs/configuration.md has the settings table").isNotNegative();
        int end = doc.indexOf("\n\n", start);
        String table = end < 0 ? doc.substring(start) : doc.substring(start, end + 1);
        assertThat(table).as("docs/configuration.md's settings table; refresh it with ConfigurationTable.main")
                .isEqualTo(ConfigurationTable.markdown());
    }
}
