package dev.baton.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the kubelet would do with the first pod of a rendered StatefulSet, as {@code podman run} arguments: its first
 * container's command and args, environment (envFrom, values with {@code $(VAR)} references, fieldRef, ConfigMap and
 * Secret keys), user and groups, read-only root, capabilities, no privilege escalation, memory limit, hostname, stop
 * grace period, and every volume the pod declares mounted where it mounts it: ConfigMap and Secret volumes as
 * directories of files (mode and fsGroup as the kubelet sets them), emptyDir as an empty world-writable directory, a
 * volume claim template as an empty directory owned by the fsGroup. Everything is read from the manifest: nothing
 * here names a Baton setting, so a volume or variable added to deploy/ is mounted or set without a change here.
 *
 * <p>The Secrets are the test's ({@code secrets}: name → key → value), as a user would create them; a Secret the test
 * does not provide is empty.
 */
final class PodAsContainer {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern LABEL_FIELD = Pattern.compile("metadata\\.labels\\['([^']+)'\\]");

    private final List<JsonNode> documents;
    private final JsonNode statefulSet;
    private final JsonNode pod;
    private final JsonNode container;
    private final String podName;
    private final String namespace;
    private final Map<String, Map<String, String>> secrets;
    private final Map<String, Path> volumeDirs = new LinkedHashMap<>();

    PodAsContainer(List<JsonNode> documents, String statefulSetName, String namespace,
            Map<String, Map<String, String>> secrets) {
        this.documents = documents;
        this.statefulSet = object("StatefulSet", statefulSetName);
        this.pod = statefulSet.at("/spec/template/spec");
        this.container = pod.at("/containers/0");
        this.podName = statefulSetName + "-0";
        this.namespace = statefulSet.at("/metadata/namespace").asText(namespace);
        this.secrets = secrets;
    }

    String podName() {
        return podName;
    }

    JsonNode container() {
        return container;
    }

    JsonNode object(String kind, String name) {
        return documents.stream().filter(d -> d.path("kind").asText().equals(kind)
                && d.at("/metadata/name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("the rendered manifests have no " + kind + " " + name));
    }

    /** The container port a probe or Service names ({@code http}) or gives as a number. */
    int containerPort(JsonNode port) {
        if (port.isInt() || port.asText().matches("[0-9]+")) {
            return port.asInt();
        }
        for (JsonNode p : container.path("ports")) {
            if (p.path("name").asText().equals(port.asText())) {
                return p.path("containerPort").asInt();
            }
        }
        throw new AssertionError("the container declares no port named " + port.asText());
    }

    /** The environment as the kubelet builds it, in order; then {@code overrides} replace or add variables. */
    Map<String, String> environment(Map<String, String> overrides) {
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode from : container.path("envFrom")) {
            String prefix = from.path("prefix").asText("");
            Map<String, String> data = from.has("configMapRef")
                    ? configMapData(from.at("/configMapRef/name").asText())
                    : secret(from.at("/secretRef/name").asText());
            // keys that are not variable names (baton.properties) are skipped, as the kubelet does
            data.forEach((k, v) -> {
                if (ENV_NAME.matcher(prefix + k).matches()) {
                    env.put(prefix + k, v);
                }
            });
        }
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asText();
            String value = value(e, env);
            if (value != null) {
                env.put(name, value);
            }
        }
        env.putAll(overrides);
        return env;
    }

    private String value(JsonNode e, Map<String, String> env) {
        if (e.has("value")) {
            // $(VAR) names a variable defined before; an unknown one stays as written (the kubelet's rule)
            Matcher m = REFERENCE.matcher(e.path("value").asText());
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(out, Matcher.quoteReplacement(env.getOrDefault(m.group(1), m.group())));
            }
            return m.appendTail(out).toString();
        }
        JsonNode from = e.path("valueFrom");
        if (from.has("fieldRef")) {
            String path = from.at("/fieldRef/fieldPath").asText();
            Matcher label = LABEL_FIELD.matcher(path);
            if (label.matches()) {
                // the pod's own label; one the pod template does not set (a node topology label that the
                // scheduler copies on recent clusters) is absent here, as on a cluster that does not copy it
                return statefulSet.at("/spec/template/metadata/labels").path(label.group(1)).asText("");
            }
            return switch (path) {
                case "metadata.name" -> podName;
                case "metadata.namespace" -> namespace;
                default -> throw new AssertionError("the test does not emulate fieldRef " + path);
            };
        }
        if (from.has("secretKeyRef")) {
            JsonNode ref = from.get("secretKeyRef");
            String value = secret(ref.path("name").asText()).get(ref.path("key").asText());
            if (value == null && secrets.containsKey(ref.path("name").asText()) && !ref.path("optional").asBoolean(false)) {
                throw new AssertionError("the test's Secret " + ref.path("name").asText() + " has no key "
                        + ref.path("key").asText() + ", which " + e.path("name").asText() + " needs");
            }
            return value;
        }
        if (from.has("configMapKeyRef")) {
            JsonNode ref = from.get("configMapKeyRef");
            return configMapData(ref.path("name").asText()).get(ref.path("key").asText());
        }
        throw new AssertionError("the test does not emulate " + e);
    }

    private Map<String, String> configMapData(String name) {
        Map<String, String> data = new LinkedHashMap<>();
        object("ConfigMap", name).path("data").properties().forEach(f -> data.put(f.getKey(), f.getValue().asText()));
        return data;
    }

    /**
     * The test's data of Secret {@code name}; a Secret the test does not provide (e.g. the Kafka cluster's CA, for
     * TLS the test's broker does not speak) is empty: its variables stay unset and its volume is an empty directory.
     */
    private Map<String, String> secret(String name) {
        return secrets.getOrDefault(name, Map.of());
    }

    /** The host directory behind volume {@code name}, once {@link #runArguments} has made it. */
    Path volumeDir(String name) {
        Path dir = volumeDirs.get(name);
        if (dir == null) {
            throw new AssertionError("no volume " + name + " was mounted");
        }
        return dir;
    }

    /** Where the file the container sees at {@code containerPath} is on the host (on a mounted volume). */
    Path hostPath(String containerPath) {
        for (JsonNode m : container.path("volumeMounts")) {
            String mountPath = m.path("mountPath").asText();
            if (containerPath.startsWith(mountPath + "/") && !m.has("subPath")) {
                return volumeDir(m.path("name").asText()).resolve(containerPath.substring(mountPath.length() + 1));
            }
        }
        throw new AssertionError(containerPath + " is on no volume the container mounts");
    }

    /**
     * The arguments of {@code podman run} (without "run" and without the image's arguments): everything but the
     * image; {@code volumesRoot} holds the volumes' host directories.
     */
    List<String> runArguments(String containerName, String network, Map<String, String> env, Path volumesRoot)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("--detach", "--name", containerName, "--network", network,
                "--hostname", podName));
        JsonNode podSecurity = pod.path("securityContext");
        JsonNode security = container.path("securityContext");
        long uid = security.path("runAsUser").asLong(podSecurity.path("runAsUser").asLong(-1));
        long gid = security.path("runAsGroup").asLong(podSecurity.path("runAsGroup").asLong(-1));
        if (security.path("runAsNonRoot").asBoolean(podSecurity.path("runAsNonRoot").asBoolean(false)) && uid <= 0) {
            throw new AssertionError("runAsNonRoot without a numeric non-zero runAsUser: the kubelet cannot verify it");
        }
        if (uid >= 0) {
            args.addAll(List.of("--user", uid + (gid >= 0 ? ":" + gid : "")));
        }
        long fsGroup = podSecurity.path("fsGroup").asLong(-1);
        if (fsGroup >= 0) {
            args.addAll(List.of("--group-add", Long.toString(fsGroup)));
        }
        for (JsonNode g : podSecurity.path("supplementalGroups")) {
            args.addAll(List.of("--group-add", g.asText()));
        }
        if (security.path("readOnlyRootFilesystem").asBoolean(false)) {
            // podman would add tmpfs on /tmp, /var/tmp and /run; Kubernetes adds none
            args.addAll(List.of("--read-only", "--read-only-tmpfs=false"));
        }
        for (JsonNode cap : security.at("/capabilities/drop")) {
            args.add("--cap-drop=" + cap.asText());
        }
        for (JsonNode cap : security.at("/capabilities/add")) {
            args.add("--cap-add=" + cap.asText());
        }
        if (security.has("allowPrivilegeEscalation") && !security.path("allowPrivilegeEscalation").asBoolean()) {
            args.addAll(List.of("--security-opt", "no-new-privileges"));
        }
        String memory = container.at("/resources/limits/memory").asText("");
        if (!memory.isEmpty()) {
            args.add("--memory=" + bytes(memory));
        }
        args.add("--stop-timeout=" + pod.path("terminationGracePeriodSeconds").asInt(30));
        if (container.has("workingDir")) {
            args.addAll(List.of("--workdir", container.path("workingDir").asText()));
        }
        if (container.has("command")) {
            args.addAll(List.of("--entrypoint", container.path("command").toString()));
        }
        env.forEach((k, v) -> args.addAll(List.of("--env", k + "=" + v)));
        for (JsonNode mount : container.path("volumeMounts")) {
            String name = mount.path("name").asText();
            Path dir = volumeDirs.containsKey(name) ? volumeDirs.get(name) : makeVolume(name, volumesRoot.resolve(name), fsGroup);
            volumeDirs.put(name, dir);
            Path source = mount.has("subPath") ? dir.resolve(mount.path("subPath").asText()) : dir;
            boolean readOnly = mount.path("readOnly").asBoolean(false);
            args.addAll(List.of("--volume", source + ":" + mount.path("mountPath").asText() + (readOnly ? ":ro" : "")));
        }
        return args;
    }

    /** The args the container runs with (the image's ENTRYPOINT stays unless the manifest gives a command). */
    List<String> containerArgs() {
        List<String> out = new ArrayList<>();
        container.path("args").forEach(a -> out.add(a.asText()));
        return out;
    }

    private Path makeVolume(String name, Path dir, long fsGroup) throws IOException {
        Files.createDirectories(dir);
        JsonNode volume = null;
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(name)) {
                volume = v;
            }
        }
        if (volume == null) {
            for (JsonNode claim : statefulSet.at("/spec/volumeClaimTemplates")) {
                if (claim.at("/metadata/name").asText().equals(name)) {
                    // a fresh persistent volume: the kubelet gives it to the fsGroup, group-writable, setgid
                    ownAndMode(dir, fsGroup, "rwxrwxr-x");
                    return dir;
                }
            }
            throw new AssertionError("the container mounts " + name + ", which the pod does not declare");
        }
        if (volume.has("emptyDir")) {
            ownAndMode(dir, -1, "rwxrwxrwx");
        } else if (volume.has("configMap")) {
            JsonNode source = volume.get("configMap");
            writeFiles(dir, configMapData(source.path("name").asText()), source, 0644, fsGroup, false);
        } else if (volume.has("secret")) {
            JsonNode source = volume.get("secret");
            String secretName = source.path("secretName").asText();
            writeFiles(dir, secret(secretName), source, 0644, fsGroup, !secrets.containsKey(secretName));
        } else {
            throw new AssertionError("the test does not emulate volume " + volume);
        }
        return dir;
    }

    /** A ConfigMap or Secret volume: its items (or every key) as files, defaultMode, group fsGroup. */
    private static void writeFiles(Path dir, Map<String, String> data, JsonNode source, int defaultModeOfKind, long fsGroup,
            boolean notProvided) throws IOException {
        int mode = source.path("defaultMode").asInt(defaultModeOfKind);
        Map<String, String> files = new LinkedHashMap<>();
        if (source.has("items")) {
            for (JsonNode item : source.get("items")) {
                String key = item.path("key").asText();
                if (!data.containsKey(key) && !notProvided && !source.path("optional").asBoolean(false)) {
                    throw new AssertionError("the volume names key " + key + ", which the test's data does not hold");
                }
                if (data.containsKey(key)) {
                    files.put(item.path("path").asText(), data.get(key));
                }
            }
        } else {
            files.putAll(data);
        }
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path file = dir.resolve(f.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
            ownAndMode(file, fsGroup, permissions(mode));
        }
        ownAndMode(dir, fsGroup, "rwxr-xr-x");
    }

    private static String permissions(int mode) {
        String all = "rwxrwxrwx";
        StringBuilder out = new StringBuilder();
        for (int bit = 8; bit >= 0; bit--) {
            out.append((mode & (1 << bit)) != 0 ? all.charAt(8 - bit) : '-');
        }
        return out.toString();
    }

    private static void ownAndMode(Path path, long group, String permissions) throws IOException {
        Set<PosixFilePermission> perms = EnumSet.copyOf(java.nio.file.attribute.PosixFilePermissions.fromString(permissions));
        Files.setPosixFilePermissions(path, perms);
        if (group >= 0) {
            GroupPrincipal principal = path.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(Long.toString(group));
            Files.getFileAttributeView(path, PosixFileAttributeView.class).setGroup(principal);
        }
    }

    /** A Kubernetes quantity (3Gi, 1536Mi, 512M, 1000) in bytes. */
    static long bytes(String quantity) {
        Matcher m = Pattern.compile("([0-9]+)(Ki|Mi|Gi|Ti|k|M|G|T)?").matcher(quantity);
        if (!m.matches()) {
            throw new AssertionError("the test does not read the quantity " + quantity);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2);
        return n * switch (unit) {
            case "Ki" -> 1L << 10;
            case "Mi" -> 1L << 20;
            case "Gi" -> 1L << 30;
            case "Ti" -> 1L << 40;
            case "k" -> 1_000L;
            case "M" -> 1_000_000L;
            case "G" -> 1_000_000_000L;
            case "T" -> 1_000_000_000_000L;
            default -> 1L;
        };
    }
}
