package dev.baton.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.baton.config.BatonConfig;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.topic.KafkaTopic;

/**
 * deploy/: every overlay renders with kustomize, every object is a well-formed typed Kubernetes
 * (or Strimzi, Prometheus Operator) object without unknown fields, the pod meets the Pod Security
 * "restricted" profile, and the objects' references to each other hold (Secret and ConfigMap keys,
 * ports, selectors, settings Baton accepts). Probe paths are checked against a running Baton in
 * {@code dev.baton.monitoring.LiveMetricsIT}.
 */
class KubernetesManifestsTest {

    static final Path DEPLOY = RepositoryFiles.root().resolve("deploy");

    static Stream<String> kustomizations() {
        return Stream.of("base", "overlays/dev", "overlays/production");
    }

    private static final Map<String, RenderedManifests> RENDERED = new java.util.concurrent.ConcurrentHashMap<>();

    /** Each kustomization is rendered once per test run (kubectl takes a second or more). */
    static RenderedManifests renderOnce(String dir) {
        try {
            return render(dir);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static synchronized RenderedManifests render(String dir) throws Exception {
        RenderedManifests r = RENDERED.get(dir);
        if (r == null) {
            r = RenderedManifests.render(DEPLOY.resolve(dir));
            RENDERED.put(dir, r);
        }
        return r;
    }

    @Test
    void shouldTestEveryOverlayThereIs() throws IOException {
        try (Stream<Path> overlays = Files.list(DEPLOY.resolve("overlays"))) {
            assertThat(overlays.map(p -> "overlays/" + p.getFileName())).containsExactlyInAnyOrderElementsOf(
                    kustomizations().filter(k -> k.startsWith("overlays/")).toList());
        }
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldRenderOnlyTypedObjectsWithoutUnknownFields(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        assertThat(rendered.objects).isNotEmpty();
        List<String> unknown = new ArrayList<>();
        rendered.objects.forEach(o -> unknown.addAll(RenderedManifests.unknownFields(o)));
        assertThat(unknown).as("fields the models do not know").isEmpty();
        // one scrape path: no prometheus.io annotations anywhere (the ServiceMonitor is the only path)
        assertThat(rendered.documents.toString()).doesNotContain("prometheus.io/");
    }

    @Test
    void shouldRejectAFieldTheModelDoesNotKnow() throws Exception {
        var document = RepositoryFiles.yamlDocuments("""
            apiVersion: apps/v1
            kind: StatefulSet
            metadata: {name: x}
            spec:
              template:
                spec:
                  containers:
                    - name: x
                      securityContext: {allowPrivilegeEscalaton: false}
            """).get(0);
        StatefulSet typed = RepositoryFiles.YAML.treeToValue(document, StatefulSet.class);
        assertThat(RenderedManifests.unknownFields(typed)).singleElement().asString().contains("allowPrivilegeEscalaton");
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldMeetTheRestrictedPodSecurityProfile(String dir) throws Exception {
        StatefulSet statefulSet = render(dir).one(StatefulSet.class, "baton");
        PodSpec pod = statefulSet.getSpec().getTemplate().getSpec();
        PodSecurityContext podSecurity = pod.getSecurityContext();
        // https://kubernetes.io/docs/concepts/security/pod-security-standards/ (baseline + restricted), by hand
        assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostIPC()).isNotEqualTo(Boolean.TRUE);
        assertThat(podSecurity.getRunAsNonRoot()).isTrue();
        assertThat(podSecurity.getRunAsUser()).isNotNull().isNotZero();
        assertThat(podSecurity.getSeccompProfile().getType()).isIn("RuntimeDefault", "Localhost");
        Set<String> allowedVolumes = Set.of("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                "persistentVolumeClaim", "projected", "secret");
        for (Volume v : pod.getVolumes()) {
            Map<String, Object> asMap = RepositoryFiles.YAML.convertValue(v,
                    new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() { });
            assertThat(asMap.keySet().stream().filter(k -> !k.equals("name"))).as(v.getName()).allMatch(allowedVolumes::contains);
        }
        List<Container> containers = new ArrayList<>(pod.getContainers());
        if (pod.getInitContainers() != null) {
            containers.addAll(pod.getInitContainers());
        }
        for (Container c : containers) {
            SecurityContext s = c.getSecurityContext();
            assertThat(s).as(c.getName()).isNotNull();
            assertThat(s.getPrivileged()).isNotEqualTo(Boolean.TRUE);
            assertThat(s.getAllowPrivilegeEscalation()).isFalse();
            assertThat(s.getCapabilities().getDrop()).contains("ALL");
            assertThat(s.getCapabilities().getAdd() == null ? List.<String>of() : s.getCapabilities().getAdd())
                    .allMatch("NET_BIND_SERVICE"::equals);
            assertThat(s.getRunAsUser() == null || s.getRunAsUser() != 0L).as("not root").isTrue();
            assertThat(s.getReadOnlyRootFilesystem()).as("read-only root filesystem").isTrue();
            assertThat(c.getPorts()).allMatch(p -> p.getHostPort() == null || p.getHostPort() == 0);
        }
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldGiveRocksDbAndTheJvmTheWritablePathsTheyNeed(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        StatefulSet statefulSet = rendered.one(StatefulSet.class, "baton");
        Container baton = container(statefulSet);
        Map<String, String> mounts = new HashMap<>();
        for (VolumeMount m : baton.getVolumeMounts()) {
            mounts.put(m.getMountPath(), m.getName());
        }
        BatonConfig config = batonConfig(rendered);
        String stateDir = config.get("state.dir");
        String stateMount = mounts.keySet().stream().filter(p -> stateDir.startsWith(p + "/")).findFirst()
                .orElseThrow(() -> new AssertionError("state.dir " + stateDir + " is on no volume"));
        assertThat(statefulSet.getSpec().getVolumeClaimTemplates()).extracting(c -> c.getMetadata().getName())
                .contains(mounts.get(stateMount));
        assertThat(mounts).containsKey("/tmp");
        Volume tmp = statefulSet.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(mounts.get("/tmp"))).findFirst().orElseThrow();
        assertThat(tmp.getEmptyDir()).isNotNull();
        assertThat(env(baton, "JAVA_TOOL_OPTIONS")).contains("-Djava.io.tmpdir=/tmp");
        // two mounts must not nest inside each other (a mount point inside a read-only ConfigMap volume)
        for (String a : mounts.keySet()) {
            for (String b : mounts.keySet()) {
                assertThat(a.equals(b) || !b.startsWith(a + "/")).as(a + " contains " + b).isTrue();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldResolveEverySecretAndConfigMapReference(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        Container baton = container(rendered.one(StatefulSet.class, "baton"));
        Set<String> documentedSecretKeys = documentedSecretKeys();
        Map<String, Set<String>> secretKeysUsed = new HashMap<>();
        for (EnvVar e : baton.getEnv()) {
            if (e.getValueFrom() == null) {
                continue;
            }
            var cm = e.getValueFrom().getConfigMapKeyRef();
            if (cm != null) {
                assertThat(rendered.one(ConfigMap.class, cm.getName()).getData()).as(e.getName()).containsKey(cm.getKey());
            }
            var secret = e.getValueFrom().getSecretKeyRef();
            if (secret != null) {
                secretKeysUsed.computeIfAbsent(secret.getName(), k -> new TreeSet<>()).add(secret.getKey());
                var generated = rendered.find(Secret.class, secret.getName());
                if (generated.isPresent() && !Boolean.TRUE.equals(secret.getOptional())) {
                    Map<String, String> data = new HashMap<>();
                    if (generated.get().getData() != null) {
                        data.putAll(generated.get().getData());
                    }
                    if (generated.get().getStringData() != null) {
                        data.putAll(generated.get().getStringData());
                    }
                    assertThat(data).as("Secret " + secret.getName() + " for " + e.getName()).containsKey(secret.getKey());
                }
                // a Secret the operator creates: the key is one deploy/README.md tells them to put in it
                assertThat(documentedSecretKeys).as("keys of baton-credentials in deploy/README.md").contains(secret.getKey());
            }
        }
        assertThat(secretKeysUsed).containsKey("baton-credentials");
        for (var from : baton.getEnvFrom()) {
            assertThat(rendered.find(ConfigMap.class, from.getConfigMapRef().getName())).isPresent();
        }
        for (Volume v : rendered.one(StatefulSet.class, "baton").getSpec().getTemplate().getSpec().getVolumes()) {
            if (v.getConfigMap() != null) {
                ConfigMap cm = rendered.one(ConfigMap.class, v.getConfigMap().getName());
                v.getConfigMap().getItems().forEach(i -> assertThat(cm.getData()).containsKey(i.getKey()));
            }
            if (v.getSecret() != null) {
                assertThat(secretKeysUsed).containsKey(v.getSecret().getSecretName());
            }
        }
        // the configuration file the container is given is the ConfigMap's
        List<String> args = baton.getArgs();
        String file = args.get(args.indexOf("--config") + 1);
        VolumeMount configMount = baton.getVolumeMounts().stream().filter(m -> file.startsWith(m.getMountPath() + "/"))
                .findFirst().orElseThrow(() -> new AssertionError(file + " is on no volume"));
        assertThat(file.substring(configMount.getMountPath().length() + 1)).isEqualTo("baton.properties");
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldGiveBatonOnlySettingsItAccepts(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        BatonConfig config = batonConfig(rendered);
        assertThat(config.get("processing.guarantee")).isEqualTo("exactly_once_v2");
        assertThat(config.get("client.id")).isEqualTo("baton-0");
        assertThat(config.get("application.server")).isEqualTo("baton-0.baton-headless.ns.svc:8080");
        int threads = Integer.parseInt(config.get("num.stream.threads"));
        Container baton = container(rendered.one(StatefulSet.class, "baton"));
        // one core per stream thread, memory bounded (request = limit: the pod is not evicted first)
        Quantity cpu = baton.getResources().getRequests().get("cpu");
        assertThat(Quantity.getAmountInBytes(cpu).doubleValue()).as("cpu request for %d threads", threads)
                .isGreaterThanOrEqualTo(threads);
        assertThat(baton.getResources().getLimits().get("memory")).isEqualTo(baton.getResources().getRequests().get("memory"));
        Matcher heap = Pattern.compile("-XX:MaxRAMPercentage=(\\d+)").matcher(env(baton, "JAVA_TOOL_OPTIONS"));
        assertThat(heap.find()).isTrue();
        assertThat(Integer.parseInt(heap.group(1))).as("heap share: RocksDB and the JVM need memory outside the heap")
                .isLessThanOrEqualTo(50);
        // standbys placed in another zone than their active: the zone tag from the pod's zone label (Kafka's
        // environment config provider), never empty (Kafka Streams refuses an empty tag at start)
        var streams = new org.apache.kafka.streams.StreamsConfig(config.toStreamsProperties());
        assertThat(streams.getList(org.apache.kafka.streams.StreamsConfig.RACK_AWARE_ASSIGNMENT_TAGS_CONFIG)).containsExactly("zone");
        assertThat(streams.getClientTags()).containsKey("zone");
        assertThat(config.get("client.tag.zone")).isEqualTo("z-${env:POD_ZONE}");
        assertThat(baton.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("POD_ZONE");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.labels['topology.kubernetes.io/zone']");
        });
        // snapshots as large as the topics allow can be produced
        assertThat(config.get("producer.max.request.size")).isEqualTo(Integer.toString(dev.baton.service.ops.TopicPlan.MAX_MESSAGE_BYTES));
    }

    /**
     * Heap besides the decoded-state caches: Kafka Streams, clients and their buffers, the record cache, rendering —
     * the live heap after a full GC with 100,000-200,000 live sessions, minus the caches' weight, rounded up
     * (benchmarks/README.md, "Live sessions in one instance").
     */
    static final long HEAP_BESIDES_CACHES_BYTES = 256L << 20;
    /** G1 keeps working with live data up to this share of -Xmx (head-room for young collections and bursts). */
    static final double LIVE_HEAP_SHARE = 0.75;
    /**
     * Resident memory besides the heap and RocksDB's bounded cache: metaspace, code cache, thread stacks, GC
     * structures, network buffers, RocksDB's unbounded bits and the allocator — measured RSS minus committed heap
     * minus the block cache's usage, rounded up (benchmarks/README.md, "Live sessions in one instance").
     */
    static final long OUTSIDE_HEAP_AND_ROCKSDB_BYTES = 640L << 20;

    /**
     * The memory arithmetic of docs/operations.md ("Memory") on what each kustomization deploys: the heap
     * ({@code MaxRAMPercentage} of the limit) holds the decoded-state caches of every task a pod runs when one pod of
     * its replicas is down (its tasks move to the others) plus what the heap needs besides; the limit holds the heap,
     * RocksDB's bound ({@code baton.rocksdb.total.bytes}) and what the JVM needs outside both.
     */
    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldFitHeapCachesAndRocksDbInTheMemoryLimit(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        BatonConfig config = batonConfig(rendered);
        StatefulSet statefulSet = rendered.one(StatefulSet.class, "baton");
        Container baton = container(statefulSet);
        long limit = Quantity.getAmountInBytes(baton.getResources().getLimits().get("memory")).longValue();
        Matcher share = Pattern.compile("-XX:MaxRAMPercentage=(\\d+)").matcher(env(baton, "JAVA_TOOL_OPTIONS"));
        assertThat(share.find()).isTrue();
        long heap = limit * Integer.parseInt(share.group(1)) / 100;
        int partitions = rendered.all(KafkaTopic.class).stream()
                .filter(t -> t.getSpec().getTopicName().equals(config.sessionEventsTopic()))
                .map(t -> t.getSpec().getPartitions()).findFirst().orElse(dev.baton.service.ops.TopicPlan.DEFAULT_PARTITIONS);
        int replicas = statefulSet.getSpec().getReplicas();
        int tasksWhenOneIsDown = (partitions + Math.max(1, replicas - 1) - 1) / Math.max(1, replicas - 1);
        long recordCache = Long.parseLong(config.toStreamsProperties().getProperty(
                org.apache.kafka.streams.StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "10485760"));

        long liveHeap = tasksWhenOneIsDown * config.stateCacheMaxBytes() + recordCache + HEAP_BESIDES_CACHES_BYTES;
        assertThat(liveHeap).as("%s: %d tasks x %d B of decoded sessions + record cache + %d B in a heap of %d B",
                dir, tasksWhenOneIsDown, config.stateCacheMaxBytes(), HEAP_BESIDES_CACHES_BYTES, heap)
                .isLessThanOrEqualTo((long) (heap * LIVE_HEAP_SHARE));
        assertThat(config.rocksDbWriteBufferBytes()).isLessThan(config.rocksDbTotalBytes());
        assertThat(heap + config.rocksDbTotalBytes() + OUTSIDE_HEAP_AND_ROCKSDB_BYTES)
                .as("%s: heap + RocksDB + JVM outside the heap within the %d B limit", dir, limit)
                .isLessThanOrEqualTo(limit);
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldWireSelectorsAndPorts(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        StatefulSet statefulSet = rendered.one(StatefulSet.class, "baton");
        Map<String, String> podLabels = statefulSet.getSpec().getTemplate().getMetadata().getLabels();
        Container baton = container(statefulSet);
        Set<String> portNames = new LinkedHashSet<>();
        Set<Integer> portNumbers = new LinkedHashSet<>();
        baton.getPorts().forEach(p -> {
            portNames.add(p.getName());
            portNumbers.add(p.getContainerPort());
        });
        assertThat(podLabels).containsAllEntriesOf(statefulSet.getSpec().getSelector().getMatchLabels());
        statefulSet.getSpec().getTemplate().getSpec().getTopologySpreadConstraints().forEach(t ->
                assertThat(podLabels).containsAllEntriesOf(t.getLabelSelector().getMatchLabels()));
        // one instance per node, enforced (a spread constraint with maxSkew 1 would let two share a node when there
        // are fewer nodes than replicas)
        var antiAffinity = statefulSet.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution();
        assertThat(antiAffinity).anySatisfy(term -> {
            assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(podLabels).containsAllEntriesOf(term.getLabelSelector().getMatchLabels());
        });
        assertThat(statefulSet.getSpec().getTemplate().getSpec().getTopologySpreadConstraints())
                .anyMatch(t -> t.getTopologyKey().equals("topology.kubernetes.io/zone"));
        assertThat(podLabels).containsAllEntriesOf(rendered.one(PodDisruptionBudget.class, "baton").getSpec().getSelector().getMatchLabels());
        NetworkPolicy policy = rendered.one(NetworkPolicy.class, "baton");
        assertThat(podLabels).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        policy.getSpec().getIngress().forEach(rule -> rule.getPorts().forEach(p -> assertThat(portOf(p.getPort(), portNames, portNumbers)).isTrue()));
        // egress reaches the brokers and the registry named in the configuration
        Set<Integer> egress = new TreeSet<>();
        policy.getSpec().getEgress().forEach(rule -> rule.getPorts().forEach(p -> egress.add(p.getPort().getIntVal())));
        BatonConfig config = batonConfig(rendered);
        for (String server : config.get("bootstrap.servers").split(",")) {
            assertThat(egress).contains(Integer.parseInt(server.substring(server.lastIndexOf(':') + 1)));
        }
        assertThat(egress).contains(53);
        for (Service service : rendered.all(Service.class)) {
            assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
            for (ServicePort p : service.getSpec().getPorts()) {
                assertThat(portOf(p.getTargetPort(), portNames, portNumbers)).as(service.getMetadata().getName()).isTrue();
            }
        }
        assertThat(rendered.one(Service.class, statefulSet.getSpec().getServiceName()).getSpec().getClusterIP()).isEqualTo("None");
        // every probe on a port the container serves; the paths are checked against a live Baton (LiveMetricsIT)
        for (Probe probe : new Probe[] {baton.getStartupProbe(), baton.getLivenessProbe(), baton.getReadinessProbe()}) {
            assertThat(probe).isNotNull();
            assertThat(portOf(probe.getHttpGet().getPort(), portNames, portNumbers)).isTrue();
            assertThat(probe.getTimeoutSeconds()).isBetween(1, probe.getPeriodSeconds() - 1);
        }
        List<String> args = baton.getArgs();
        assertThat(args).startsWith("run");
        assertThat(portNumbers).contains(Integer.parseInt(args.get(args.indexOf("--http-port") + 1)));
        // the account has no API token: Baton does not call the Kubernetes API
        assertThat(statefulSet.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void shouldScrapeThroughExactlyOneServiceWhenMonitoringIsOn() throws Exception {
        RenderedManifests base = render("base");
        assertThat(base.all(ServiceMonitor.class)).as("monitoring is opt-in").isEmpty();
        RenderedManifests production = render("overlays/production");
        ServiceMonitor monitor = production.all(ServiceMonitor.class).get(0);
        Map<String, String> selector = monitor.getSpec().getSelector().getMatchLabels();
        List<Service> scraped = production.all(Service.class).stream()
                .filter(s -> s.getMetadata().getLabels().entrySet().containsAll(selector.entrySet())).toList();
        assertThat(scraped).as("Services the ServiceMonitor selects").hasSize(1);
        Set<String> servicePorts = new TreeSet<>();
        scraped.get(0).getSpec().getPorts().forEach(p -> servicePorts.add(p.getName()));
        // kube-prometheus-stack selects both by its release label (deploy/README.md, "Monitoring")
        var rule = production.all(io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule.class).get(0);
        assertThat(monitor.getMetadata().getLabels()).containsKey("release");
        assertThat(rule.getMetadata().getLabels()).containsEntry("release", monitor.getMetadata().getLabels().get("release"));
        monitor.getSpec().getEndpoints().forEach(e -> {
            assertThat(servicePorts).contains(e.getPort());
            assertThat(e.getPath()).isEqualTo("/metrics");
        });
    }

    @Test
    void shouldCarryTheTopicsOnlyWhereStrimziIsChosen() throws Exception {
        assertThat(render("base").all(KafkaTopic.class)).isEmpty();
        assertThat(render("overlays/production").all(KafkaTopic.class)).hasSize(4);
    }

    /**
     * Issue 35: a rolling update never has two cold instances at once. It replaces one pod at a time and waits until
     * the new one is Ready — /readyz, which answers 503 while the JVM warms up and until Kafka Streams is RUNNING — and
     * stays Ready for minReadySeconds; a drain takes one pod at a time (the budget); the warm-up is on; with more than
     * one replica every task has a standby, so the tasks that move need no restore.
     */
    @ParameterizedTest
    @MethodSource("kustomizations")
    void shouldRollOutOneWarmReadyInstanceAtATime(String dir) throws Exception {
        RenderedManifests rendered = render(dir);
        StatefulSet statefulSet = rendered.one(StatefulSet.class, "baton");
        var update = statefulSet.getSpec().getUpdateStrategy();
        assertThat(update.getType()).isEqualTo("RollingUpdate");
        if (update.getRollingUpdate() != null && update.getRollingUpdate().getMaxUnavailable() != null) {
            assertThat(update.getRollingUpdate().getMaxUnavailable().getIntVal()).isEqualTo(1);
        }
        assertThat(statefulSet.getSpec().getMinReadySeconds()).as("%s: minReadySeconds", dir).isGreaterThanOrEqualTo(10);
        Container baton = container(statefulSet);
        assertThat(baton.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(baton.getStartupProbe().getHttpGet().getPath()).as("the warm-up is not a failed start")
                .isEqualTo("/healthz");
        assertThat(rendered.one(PodDisruptionBudget.class, "baton").getSpec().getMaxUnavailable().getIntVal())
                .isEqualTo(1);
        BatonConfig config = batonConfig(rendered);
        assertThat(config.warmupMaxTime()).as("%s: the warm-up is on", dir).isPositive();
        // the warm-up ends well within the startup probe's allowance and the readiness probe's patience
        assertThat(config.warmupMaxTime().toSeconds()).isLessThan(
                (long) baton.getStartupProbe().getPeriodSeconds() * baton.getStartupProbe().getFailureThreshold());
        if (statefulSet.getSpec().getReplicas() > 1) {
            assertThat(Integer.parseInt(config.toStreamsProperties().getProperty("num.standby.replicas", "0")))
                    .as("%s: a standby for every task", dir).isGreaterThanOrEqualTo(1);
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    static Container container(StatefulSet statefulSet) {
        return statefulSet.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals("baton")).findFirst().orElseThrow();
    }

    private static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name));
    }

    private static boolean portOf(IntOrString port, Set<String> names, Set<Integer> numbers) {
        return port.getStrVal() != null ? names.contains(port.getStrVal()) : numbers.contains(port.getIntVal());
    }

    /** The keys of {@code baton-credentials} the operator is told to create, from deploy/README.md. */
    static Set<String> documentedSecretKeys() throws IOException {
        Set<String> keys = new TreeSet<>();
        Matcher m = Pattern.compile("--from-(?:literal|file)=([A-Za-z0-9._-]+)=").matcher(Files.readString(DEPLOY.resolve("README.md")));
        while (m.find()) {
            keys.add(m.group(1));
        }
        return keys;
    }

    /**
     * What pod baton-0 in namespace ns gets: the ConfigMap's file and variables, then the container's
     * variables (the Kubernetes $(VAR) references expanded; a variable from a Secret gets a placeholder).
     */
    static BatonConfig batonConfig(RenderedManifests rendered) throws IOException {
        StatefulSet statefulSet = rendered.one(StatefulSet.class, "baton");
        Container baton = container(statefulSet);
        ConfigMap configMap = rendered.one(ConfigMap.class, baton.getEnvFrom().get(0).getConfigMapRef().getName());
        Path file = Files.createTempFile("baton", ".properties");
        try {
            Files.writeString(file, configMap.getData().get("baton.properties"));
            Map<String, String> env = new HashMap<>();
            configMap.getData().forEach((k, v) -> {
                if (k.matches("[A-Z_][A-Z0-9_]*")) {
                    env.put(k, v);
                }
            });
            // the zone label: Kubernetes 1.35+ copies it from the node when it binds the pod (deploy/README.md, Placement)
            Map<String, String> fields = Map.of("metadata.name", "baton-0", "metadata.namespace", "ns",
                    "metadata.labels['topology.kubernetes.io/zone']", "europe-west1-b");
            for (EnvVar e : baton.getEnv()) {
                String value;
                if (e.getValue() != null) {
                    value = e.getValue();
                    for (var known : env.entrySet()) {
                        value = value.replace("$(" + known.getKey() + ")", known.getValue());
                    }
                } else if (e.getValueFrom().getFieldRef() != null) {
                    value = fields.get(e.getValueFrom().getFieldRef().getFieldPath());
                } else if (e.getName().equals("BATON_SCHEMA_REGISTRY_URL")) {
                    value = "https://user:secret@registry.example:8081";
                } else {
                    value = "placeholder-from-secret";
                }
                env.put(e.getName(), value);
            }
            return BatonConfig.builder().file(file).environment(env).build();
        } finally {
            Files.delete(file);
        }
    }

    static Properties properties(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        return p;
    }

    static List<HasMetadata> objects(RenderedManifests r) {
        return r.objects;
    }
}
