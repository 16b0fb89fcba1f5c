package dev.baton.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Base images for the Dockerfile's two stages, made without a container registry (none is reachable here): a
 * Debian root from the machine's own apt sources by {@code mmdebstrap}, then {@code podman import}ed. The runtime
 * base holds a JRE only; the build base a JDK and Maven.
 *
 * <p>A base is made once per clone and package list: a marker file under the module's {@code target/} names the
 * imported image, whose tag is a digest of the Debian release, the package list and the apt sources. A fresh clone
 * (CI) has no marker and makes both bases (side by side, about a minute and a half); a rerun reuses them.
 */
final class ImageBases {

    /** What the runtime stage needs: {@code java} and bash (for the HEALTHCHECK), useradd comes with Debian. */
    static final List<String> RUNTIME_PACKAGES = List.of("openjdk-17-jre-headless");
    /** What the build stage needs: a JDK and Maven (it builds offline from the host's local repository). */
    static final List<String> BUILD_PACKAGES = List.of("openjdk-17-jdk-headless", "maven");

    private static final Path DEB822_SOURCES = Path.of("/etc/apt/sources.list.d/debian.sources");
    private static final Path ONE_LINE_SOURCES = Path.of("/etc/apt/sources.list");

    private final Podman podman;
    private final Path cacheDir;

    ImageBases(Podman podman, Path cacheDir) {
        this.podman = podman;
        this.cacheDir = cacheDir;
    }

    /** The runtime and the build base (in that order), made side by side when this clone has neither. */
    List<String> runtimeAndBuild() throws Exception {
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            Future<String> runtime = two.submit(() -> image("runtime", RUNTIME_PACKAGES));
            Future<String> build = two.submit(() -> image("build", BUILD_PACKAGES));
            return List.of(get(runtime), get(build));
        } finally {
            two.shutdownNow();
        }
    }

    private static String get(Future<String> base) throws Exception {
        try {
            return base.get(20, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw (Exception) e.getCause();
        }
    }

    /** The local image for {@code role} ("runtime", "build") with {@code packages}, made if this clone has none. */
    String image(String role, List<String> packages) throws IOException {
        Path sources = Files.isRegularFile(DEB822_SOURCES) ? DEB822_SOURCES : ONE_LINE_SOURCES;
        String suite = suite();
        String key = sha256(suite + "\n" + String.join(",", packages) + "\n" + Files.readString(sources)).substring(0, 16);
        String image = "localhost/baton-it-" + role + "-base:" + key;
        Files.createDirectories(cacheDir);
        Path marker = cacheDir.resolve(role + "-" + key + ".imported");
        if (Files.isRegularFile(marker) && podman.run(Duration.ofSeconds(30), null, List.of("image", "exists", image)).ok()) {
            return image;
        }
        Path tar = cacheDir.resolve(role + "-" + key + ".tar");
        Podman.Result made = podman.exec(Duration.ofMinutes(10), "mmdebstrap-" + role + ".log", List.of("mmdebstrap",
                "--variant=minbase", "--include=" + String.join(",", packages), suite, tar.toString(), "-"), sources);
        if (!made.ok()) {
            throw new AssertionError("mmdebstrap of the " + role + " base failed:\n" + made.tail(30));
        }
        try {
            Podman.Result imported = podman.run(Duration.ofMinutes(5), "import-" + role + ".log",
                    List.of("import", "--quiet", tar.toString(), image));
            if (!imported.ok()) {
                throw new AssertionError("podman import of the " + role + " base failed:\n" + imported.tail(30));
            }
        } finally {
            Files.deleteIfExists(tar); // the image store holds it now; the tar is hundreds of MB
        }
        Files.writeString(marker, image + "\n");
        return image;
    }

    /** The machine's Debian release (VERSION_CODENAME of /etc/os-release), e.g. bookworm. */
    private static String suite() throws IOException {
        Matcher m = Pattern.compile("(?m)^VERSION_CODENAME=\"?([a-z]+)\"?$").matcher(Files.readString(Path.of("/etc/os-release")));
        if (!m.find()) {
            throw new AssertionError("/etc/os-release names no VERSION_CODENAME: the bases need a Debian machine");
        }
        return m.group(1);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
