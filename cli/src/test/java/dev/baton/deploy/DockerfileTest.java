package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The Dockerfile's structure: what the build reads is copied, the bases and Maven's arguments are build arguments in
 * scope where they are used, every step fails the build when it fails, the entry point is the service module's
 * {@code main}, and the image's user is the pod's. ProductionPodIT builds and runs it for real; these checks say
 * which rule broke without a container engine.
 */
class DockerfileTest {

    static final Path ROOT = RepositoryFiles.root();
    private static final Pattern ARG_USE = Pattern.compile("\\$\\{?([A-Z_]+)");

    static String dockerfile() throws IOException {
        return Files.readString(ROOT.resolve("Dockerfile"));
    }

    /** The instructions, continuation lines joined, comments dropped. */
    static List<String> instructions() throws IOException {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : dockerfile().split("\n")) {
            if (line.strip().startsWith("#")) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            if (!current.toString().isBlank()) {
                out.add(current.toString().strip());
            }
            current.setLength(0);
        }
        return out;
    }

    /** The variables of the image's ENV instructions (the last stage's), in order. */
    static Map<String, String> imageEnvironment() throws IOException {
        List<String> all = instructions();
        int lastFrom = 0;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).startsWith("FROM ")) {
                lastFrom = i;
            }
        }
        Map<String, String> env = new LinkedHashMap<>();
        Pattern pair = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|\\S+)");
        for (String i : all.subList(lastFrom, all.size())) {
            if (i.startsWith("ENV ")) {
                Matcher m = pair.matcher(i.substring(4));
                while (m.find()) {
                    env.put(m.group(1), m.group(2).replaceAll("^\"|\"$", ""));
                }
            }
        }
        return env;
    }

    @Test
    void shouldFailTheBuildWhenAStepFails() throws IOException {
        for (String run : instructions().stream().filter(i -> i.startsWith("RUN ")).toList()) {
            assertThat(run).as(run).doesNotContainPattern("\\|\\|\\s*true").doesNotContainPattern("\\|\\|\\s*:")
                    .doesNotContain("; exit 0");
            if (run.contains(";")) {
                assertThat(run).as("a multi-command RUN stops at the first failure").contains("set -eu");
            }
        }
    }

    @Test
    void shouldCopyEveryRepositoryFileTheMavenBuildReads() throws IOException {
        List<String> copied = instructions().stream().filter(i -> i.startsWith("COPY ") && !i.contains("--from="))
                .map(i -> i.split("\\s+")[1].replaceAll("/$", "")).toList();
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        // files the root pom names by the project directory (build-tools/checkstyle.xml, read in the validate phase)
        Matcher named = Pattern.compile("\\$\\{maven\\.multiModuleProjectDirectory}/([^<\\s]+)").matcher(pom);
        List<String> needed = new ArrayList<>();
        while (named.find()) {
            needed.add(named.group(1));
        }
        assertThat(needed).as("the root pom reads build-tools/checkstyle.xml").contains("build-tools/checkstyle.xml");
        for (String file : needed) {
            assertThat(copied).as("the build reads %s: it must be copied", file)
                    .anyMatch(c -> file.equals(c) || file.startsWith(c + "/"));
        }
        // the reactor reads every module's pom, and builds service with the modules it depends on
        Matcher modules = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        while (modules.find()) {
            String module = modules.group(1);
            assertThat(copied).as("module %s", module).anyMatch(c -> c.equals(module) || c.equals(module + "/pom.xml"));
        }
        for (String module : List.of("schemas", "engine", "processors", "topology", "service")) {
            assertThat(copied).as("built module %s is copied whole", module).contains(module);
        }
    }

    @Test
    void shouldTakeTheBaseImagesAndMavensArgumentsAsBuildArgumentsInScope() throws IOException {
        List<String> all = instructions();
        Map<String, String> globalArgs = new LinkedHashMap<>();
        int firstFrom = all.indexOf(all.stream().filter(i -> i.startsWith("FROM ")).findFirst().orElseThrow());
        for (String i : all.subList(0, firstFrom)) {
            if (i.startsWith("ARG ")) {
                String[] kv = i.substring(4).strip().split("=", 2);
                globalArgs.put(kv[0], kv.length > 1 ? kv[1] : "");
            }
        }
        assertThat(globalArgs).containsEntry("BUILD_IMAGE", "maven:3.9-eclipse-temurin-17")
                .containsEntry("RUNTIME_IMAGE", "eclipse-temurin:17-jre");
        List<String> froms = all.stream().filter(i -> i.startsWith("FROM ")).toList();
        assertThat(froms).hasSize(2);
        assertThat(froms.get(0)).startsWith("FROM ${BUILD_IMAGE} ");
        assertThat(froms.get(1)).isEqualTo("FROM ${RUNTIME_IMAGE}");
        // an ARG declared before the first FROM is not visible inside a stage: each stage declares what it uses
        List<String> stageArgs = new ArrayList<>();
        for (String i : all.subList(firstFrom, all.size())) {
            if (i.startsWith("FROM ")) {
                stageArgs.clear();
            } else if (i.startsWith("ARG ")) {
                stageArgs.add(i.substring(4).strip().split("=", 2)[0]);
            } else if (i.startsWith("RUN ")) {
                Matcher use = ARG_USE.matcher(i);
                while (use.find()) {
                    if (globalArgs.containsKey(use.group(1)) || use.group(1).equals("MAVEN_BUILD_ARGS")) {
                        assertThat(stageArgs).as("%s is declared in its stage before: %s", use.group(1), i)
                                .contains(use.group(1));
                    }
                }
            }
        }
        String mvn = all.stream().filter(i -> i.startsWith("RUN ") && i.contains(" mvn ")).findFirst().orElseThrow();
        assertThat(mvn).contains("${MAVEN_BUILD_ARGS}").contains("package -pl service -am");
        assertThat(all).contains("ARG MAVEN_BUILD_ARGS=\"\"");
    }

    @Test
    void shouldStartTheServiceModulesMainFromTheServiceJarsOnly() throws Exception {
        String file = dockerfile();
        Matcher entry = Pattern.compile("ENTRYPOINT \\[\"java\", \"-cp\", \"([^\"]+)\", \"([^\"]+)\"]").matcher(file);
        assertThat(entry.find()).isTrue();
        assertThat(entry.group(1)).isEqualTo("/app/baton-service.jar:/app/lib/*");
        Class<?> main = Class.forName(entry.group(2));
        // the class is the service module's, not the command line's (which brings the in-process broker)
        assertThat(main.getProtectionDomain().getCodeSource().getLocation().getPath()).contains("/service/target/");
        Method method = main.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(method.getModifiers()) && Modifier.isPublic(method.getModifiers()))
                .as("public static main").isTrue();
        assertThat(method.getReturnType()).isEqualTo(void.class);
        assertThat(file).contains("cp service/target/baton-service-*.jar /out/app/baton-service.jar")
                .contains("cp -r service/target/lib /out/app/lib")
                .doesNotContain("cli/target").doesNotContain("replay/target");
    }

    @Test
    void shouldRunAsTheUserAndGroupThePodRunsAs() throws Exception {
        List<String> users = instructions().stream().filter(i -> i.startsWith("USER ")).toList();
        assertThat(users).isNotEmpty();
        String[] user = users.get(users.size() - 1).substring(5).strip().split(":");
        JsonNode pod = RenderedManifests.render(ROOT.resolve("deploy/overlays/production")).documents.stream()
                .filter(d -> d.path("kind").asText().equals("StatefulSet")).findFirst().orElseThrow()
                .at("/spec/template/spec");
        assertThat(user[0]).isEqualTo(pod.at("/securityContext/runAsUser").asText());
        assertThat(user).hasSize(2);
        assertThat(user[1]).isEqualTo(pod.at("/securityContext/runAsGroup").asText());
    }
}
