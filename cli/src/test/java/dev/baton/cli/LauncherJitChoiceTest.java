package dev.baton.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ./baton} launcher's choice of JIT: C1 only ({@code -XX:TieredStopAtLevel=1}) for {@code demo} and for a
 * backfill of a small input file, both compilers otherwise, and never an option of its own when
 * {@code BATON_JAVA_OPTS} sets one. The launcher runs against a stand-in {@code java} that prints its arguments.
 */
class LauncherJitChoiceTest {
    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    private static final Path LAUNCHER = Path.of("..", "baton").toAbsolutePath().normalize();
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;
    private Path javaHome;

    @BeforeEach
    void standInJava() throws IOException {
        javaHome = dir.resolve("jdk");
        Path java = Files.createDirectories(javaHome.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** The JVM options and arguments the launcher passes to java. */
    private List<String> javaArguments(String javaOpts, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().put("BATON_NO_BUILD", "1");
        // no class-data archive: only the JIT choice is under test
        pb.environment().put("BATON_JAVA_OPTS", ("-Xshare:off " + javaOpts).trim());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    private Path file(String name, long bytes) throws IOException {
        Path f = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(bytes); // sparse: only its size matters
        }
        return f;
    }

    @Test
    void shouldRunDemoWithC1Only() throws Exception {
        assertThat(javaArguments("", "demo")).contains(C1_ONLY);
    }

    @Test
    void shouldRunABackfillOfASmallFileWithC1Only() throws Exception {
        Path small = file("small.jsonl", 2 * MIB);

        assertThat(javaArguments("", "backfill", "-i", small.toString(), "-o", "out.jsonl")).contains(C1_ONLY);
        assertThat(javaArguments("", "backfill", "-o", "out.jsonl", "--input=" + small)).contains(C1_ONLY);
        assertThat(javaArguments("", "backfill", "--input", small.toString(), "-o", "out.jsonl")).contains(C1_ONLY);
    }

    @Test
    void shouldKeepBothCompilersForALargeOrUnknownInput() throws Exception {
        Path large = file("large.jsonl", 129 * MIB);
        Path compressed = file("medium.jsonl.gz", 13 * MIB); // counts ten times its size

        assertThat(javaArguments("", "backfill", "-i", large.toString(), "-o", "out.jsonl")).doesNotContain(C1_ONLY);
        assertThat(javaArguments("", "backfill", "-i", compressed.toString(), "-o", "o.jsonl")).doesNotContain(C1_ONLY);
        assertThat(javaArguments("", "backfill", "-i", dir.resolve("missing.jsonl").toString(), "-o", "o.jsonl"))
            .doesNotContain(C1_ONLY);
        assertThat(javaArguments("", "backfill", "--from", "atif", "runs/", "-o", "o.jsonl")).doesNotContain(C1_ONLY);
    }

    @Test
    void shouldNotChooseForOtherCommands() throws Exception {
        assertThat(javaArguments("", "run")).doesNotContain(C1_ONLY);
        assertThat(javaArguments("", "--help")).doesNotContain(C1_ONLY);
    }

    @Test
    void shouldLeaveTheJitToAnOptionInBatonJavaOpts() throws Exception {
        Path small = file("small.jsonl", MIB);

        assertThat(javaArguments("-XX:TieredStopAtLevel=4", "backfill", "-i", small.toString(), "-o", "o.jsonl"))
            .doesNotContain(C1_ONLY).contains("-XX:TieredStopAtLevel=4");
        assertThat(javaArguments("-XX:-TieredCompilation", "demo")).doesNotContain(C1_ONLY);
        assertThat(javaArguments("-XX:CICompilerCount=2", "demo")).doesNotContain(C1_ONLY);
        assertThat(javaArguments("-Xint", "demo")).doesNotContain(C1_ONLY);
    }
}
