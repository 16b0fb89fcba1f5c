package dev.baton.config;

import dev.baton.engine.policy.Policy;
import dev.baton.engine.policy.PolicyField;
import dev.baton.engine.snapshot.SnapshotSize;
import dev.baton.serde.RegistryOptions;
import dev.baton.processor.JTokkitTokenizers;
import dev.baton.processor.SnapshotFit;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * Baton's configuration: Baton's own settings ({@code baton.*}) plus every Kafka setting, resolved with one
 * precedence, lowest first:
 * <ol>
 *   <li>built-in defaults ({@link #SETTINGS});</li>
 *   <li>the properties file ({@code --config FILE}, or {@code BATON_CONFIG});</li>
 *   <li>the environment: {@code BATON_} + the key without {@code baton.}, upper case, {@code .} and {@code -} as
 *       {@code _} (e.g. {@code BATON_FORMAT}, {@code BATON_TOPIC_SESSION_EVENTS}); a Kafka client setting the same
 *       way from its own name ({@code BATON_BOOTSTRAP_SERVERS}, {@code BATON_SECURITY_PROTOCOL},
 *       {@code BATON_SASL_JAAS_CONFIG});</li>
 *   <li>command-line flags ({@code --bootstrap-servers}, {@code --schema-registry-url}, {@code --format},
 *       {@code --http-port}, see {@link #FLAGS}).</li>
 * </ol>
 * It fails loudly, with a {@link BatonConfigException} naming where each value came from, on an unknown
 * {@code baton.*} key or {@code BATON_*} variable, a value of the wrong type, and settings that cannot both hold.
 * Every key that is not {@code baton.*} is passed through unchanged to the Kafka clients (security settings such as
 * {@code security.protocol}, {@code ssl.*}, {@code sasl.*} included).
 */
public final class BatonConfig {
    public static final String SESSION_EVENTS_TOPIC = "baton.topic.session-events";
    public static final String CONTEXT_SNAPSHOTS_TOPIC = "baton.topic.context-snapshots";
    public static final String DEAD_LETTERS_TOPIC = "baton.topic.dead-letters";
    public static final String TENANT_POLICIES_TOPIC = "baton.topic.tenant-policies";
    public static final String HANDOFF_RECEIPTS_TOPIC = "baton.topic.handoff-receipts";
    public static final String HANDOFF_OUTCOMES_TOPIC = "baton.topic.handoff-outcomes";
    public static final String METRICS_TENANTS = "baton.metrics.tenants";
    public static final String FORMAT = "baton.format";
    public static final String SCHEMA_REGISTRY_URL = "baton.schema-registry.url";
    public static final String PUNCTUATE_INTERVAL_MS = "baton.punctuate.interval.ms";
    public static final String PUNCTUATE_WALL_CLOCK = "baton.punctuate.wall-clock";
    public static final String PUNCTUATE_MAX_SESSIONS = "baton.punctuate.max-sessions";
    public static final String HTTP_PORT = "baton.http.port";
    public static final String HTTP_BIND_ADDRESS = "baton.http.bind-address";
    public static final String HTTP_TOKENS_FILE = "baton.http.tokens-file";
    public static final String HTTP_MAX_URL_CHARS = "baton.http.max-url-chars";
    public static final String INPUT_PARTITIONER = "baton.input.partitioner";
    public static final String HTTP_MAX_CONCURRENT_QUERIES = "baton.http.max-concurrent-queries";
    public static final String STATE_CACHE_MAX_BYTES = "baton.state.cache.max.bytes";
    public static final String STATE_CHANGELOG = "baton.state.changelog";
    public static final String ROCKSDB_TOTAL_BYTES = "baton.rocksdb.total.bytes";
    public static final String ROCKSDB_WRITE_BUFFER_BYTES = "baton.rocksdb.write-buffer.bytes";
    public static final String POLICY_PREFIX = "baton.policy.";
    public static final String MAX_OUTPUT_BYTES = "baton.max-output-bytes";
    public static final String WARMUP_MAX_MS = "baton.warmup.max-ms";
    public static final String REGISTRY_BASIC_AUTH = "baton.schema-registry.basic-auth-user-info";
    public static final String REGISTRY_BEARER_TOKEN = "baton.schema-registry.bearer-token";
    public static final String REGISTRY_TRUSTSTORE = "baton.schema-registry.ssl.truststore.location";
    public static final String REGISTRY_TRUSTSTORE_PASSWORD = "baton.schema-registry.ssl.truststore.password";
    public static final String REGISTRY_TRUSTSTORE_TYPE = "baton.schema-registry.ssl.truststore.type";
    public static final String REGISTRY_AUTO_REGISTER = "baton.schema-registry.auto-register";
    /** Settings whose values are secrets: never printed (see {@link #printable}). */
    public static final Set<String> SECRETS = Set.of(REGISTRY_BASIC_AUTH, REGISTRY_BEARER_TOKEN,
            REGISTRY_TRUSTSTORE_PASSWORD);
    /** The changelog topics' {@code max.message.bytes} as Kafka Streams sets it (prefix {@code topic.}). */
    public static final String CHANGELOG_MAX_MESSAGE_BYTES = StreamsConfig.TOPIC_PREFIX + "max.message.bytes";
    /** min.insync.replicas of the internal topics Kafka Streams creates; follows replication.factor unless set. */
    public static final String CHANGELOG_MIN_INSYNC_REPLICAS = StreamsConfig.TOPIC_PREFIX + "min.insync.replicas";
    /** The most of an OVERSIZED record's value its dead letter carries. */
    public static final int OVERSIZED_EXCERPT_BYTES = 64 * 1024;

    /**
     * Variables with the BATON_ prefix that are not settings (read by the launcher, as the file's path, or by the
     * logging configuration: BATON_LOG_FORMAT, which the image and the pod set).
     */
    public static final Set<String> NON_SETTING_VARIABLES = Set.of("BATON_CONFIG", "BATON_OPTS", "BATON_JAVA_OPTS",
            "BATON_HOME", "BATON_LOG_FORMAT");

    /** Command-line flags and the key each one sets. */
    public static final Map<String, String> FLAGS = Map.of(
            "--bootstrap-servers", StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
            "--schema-registry-url", SCHEMA_REGISTRY_URL,
            "--format", FORMAT,
            "--http-port", HTTP_PORT);

    public enum Format { AVRO, JSON }

    /** Every setting with a built-in default or a type check, in documentation order ({@link BatonSettings}). */
    public static final ConfigDef SETTINGS = BatonSettings.definition();

    private final Map<String, String> values;
    private final Map<String, String> origins;

    private BatonConfig(Map<String, String> values, Map<String, String> origins) {
        this.values = Collections.unmodifiableMap(values);
        this.origins = Collections.unmodifiableMap(origins);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The whole precedence in one call, as the command line needs it.
     *
     * @param configFile the {@code --config} file, or null: then {@code BATON_CONFIG} from {@code env}, if set
     * @param env        the process environment ({@code System.getenv()}); only {@code BATON_*} variables are read
     * @param flags      flag name ({@code --format}, see {@link #FLAGS}) to value; null values (flag not given) are
     *                   skipped
     */
    public static BatonConfig load(Path configFile, Map<String, String> env, Map<String, String> flags) {
        Builder b = builder();
        Path file = configFile(configFile, env);
        if (file != null) b.file(file);
        b.environment(env);
        new TreeMap<>(flags).forEach((flag, value) -> {
            if (value != null) b.flag(flag, value);
        });
        return b.build();
    }

    /** The properties file of the precedence: {@code --config}'s, else {@code BATON_CONFIG}'s, else null (none). */
    public static Path configFile(Path configFlag, Map<String, String> env) {
        if (configFlag != null) return configFlag;
        String named = env.get("BATON_CONFIG");
        return named == null || named.isBlank() ? null : Path.of(named);
    }

    /** Built-in defaults overridden by {@code overrides} (origin "code"): for tests and embedded use. */
    public static BatonConfig of(Map<String, String> overrides) {
        Builder b = builder();
        overrides.forEach(b::set);
        return b.build();
    }

    // ---- typed accessors ------------------------------------------------------------------------------------------

    public String sessionEventsTopic() {
        return values.get(SESSION_EVENTS_TOPIC);
    }

    public String contextSnapshotsTopic() {
        return values.get(CONTEXT_SNAPSHOTS_TOPIC);
    }

    public String deadLettersTopic() {
        return values.get(DEAD_LETTERS_TOPIC);
    }

    /** The tenant-policies topic, or empty when it is configured off (empty value). */
    public Optional<String> tenantPoliciesTopic() {
        String t = values.get(TENANT_POLICIES_TOPIC);
        return t == null || t.isEmpty() ? Optional.empty() : Optional.of(t);
    }

    /** The hand-off receipts topic, or empty when receipts are off (the default: empty value). */
    public Optional<String> handoffReceiptsTopic() {
        String t = values.get(HANDOFF_RECEIPTS_TOPIC);
        return t == null || t.isEmpty() ? Optional.empty() : Optional.of(t);
    }

    /** The topic of joined hand-off outcomes (written only while receipts are on). */
    public String handoffOutcomesTopic() {
        return values.get(HANDOFF_OUTCOMES_TOPIC);
    }

    /** The tenants whose cost metrics carry their own {@code tenant} label; every other tenant is {@code other}. */
    public java.util.Set<String> metricsTenants() {
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (String t : values.get(METRICS_TENANTS).split(",")) {
            if (!t.isBlank()) out.add(t.strip());
        }
        return out;
    }

    public Format format() {
        return Format.valueOf(values.get(FORMAT).toUpperCase(Locale.ROOT));
    }

    public Optional<String> schemaRegistryUrl() {
        return Optional.ofNullable(values.get(SCHEMA_REGISTRY_URL)).filter(s -> !s.isEmpty());
    }

    public Duration punctuateInterval() {
        return Duration.ofMillis(Long.parseLong(values.get(PUNCTUATE_INTERVAL_MS)));
    }

    public boolean wallClockPunctuation() {
        return Boolean.parseBoolean(values.get(PUNCTUATE_WALL_CLOCK));
    }

    public int maxSessionsPerPunctuation() {
        return Integer.parseInt(values.get(PUNCTUATE_MAX_SESSIONS));
    }

    /** Bound of the decoded-state cache per stream task, in bytes. */
    public long stateCacheMaxBytes() {
        return Long.parseLong(values.get(STATE_CACHE_MAX_BYTES));
    }

    /** False: the session stores have no changelog topics (a run whose state never outlives its process). */
    public boolean stateChangelog() {
        return Boolean.parseBoolean(values.get(STATE_CHANGELOG));
    }

    public long rocksDbTotalBytes() {
        return Long.parseLong(values.get(ROCKSDB_TOTAL_BYTES));
    }

    public long rocksDbWriteBufferBytes() {
        return Long.parseLong(values.get(ROCKSDB_WRITE_BUFFER_BYTES));
    }

    /** What the HTTP endpoints read: address, port, limits and the tokens file. */
    public HttpSettings http() {
        return new HttpSettings(httpBindAddress(), httpPort(), httpMaxUrlChars(), httpMaxConcurrentQueries(),
                httpTokensFile());
    }

    /** What the RocksDB stores read: the instance's memory bounds. */
    public RocksDbSettings rocksDb() {
        return new RocksDbSettings(rocksDbTotalBytes(), rocksDbWriteBufferBytes());
    }

    public int httpPort() {
        return Integer.parseInt(values.get(HTTP_PORT));
    }

    /** {@code baton.max-output-bytes}: no record Baton writes is larger (as the producer measures it). */
    public int maxOutputBytes() {
        return Integer.parseInt(values.get(MAX_OUTPUT_BYTES));
    }

    /** The snapshots' format as {@link SnapshotSize} measures it. */
    public SnapshotSize.Encoding snapshotEncoding() {
        return format() == Format.AVRO ? SnapshotSize.Encoding.AVRO : SnapshotSize.Encoding.JSON;
    }

    public String httpBindAddress() {
        return values.get(HTTP_BIND_ADDRESS);
    }

    /** The bearer tokens file of session queries, or empty: then every session query is refused. */
    public Optional<Path> httpTokensFile() {
        String f = values.get(HTTP_TOKENS_FILE);
        return f == null || f.isBlank() ? Optional.empty() : Optional.of(Path.of(f));
    }

    /** How to reach the schema registry beyond its URL ({@code baton.schema-registry.*}). */
    public RegistryOptions registryOptions() {
        String store = values.get(REGISTRY_TRUSTSTORE);
        return new RegistryOptions(values.get(REGISTRY_BASIC_AUTH), values.get(REGISTRY_BEARER_TOKEN),
                store == null || store.isBlank() ? null : Path.of(store), values.get(REGISTRY_TRUSTSTORE_PASSWORD),
                values.get(REGISTRY_TRUSTSTORE_TYPE), Boolean.parseBoolean(values.get(REGISTRY_AUTO_REGISTER)));
    }

    /**
     * {@code value} of {@code key} as it may be printed: {@code [hidden]} for Baton's secrets and for Kafka settings
     * that hold one ({@code *.password}, {@code sasl.jaas.config}, ...), a URL's user info as {@code ***}.
     */
    public static String printable(String key, String value) {
        if (value == null) return null;
        String k = key.toLowerCase(Locale.ROOT);
        if (SECRETS.contains(key) || k.contains("password") || k.contains("jaas") || k.contains("secret")
                || k.endsWith(".token") || k.contains("credentials") || k.endsWith("user.info")) return "[hidden]";
        return RegistryOptions.redact(value);
    }

    /** How the producers of the session-events topic partition by key: {@code murmur2} or {@code crc32}. */
    public String inputPartitioner() {
        return values.get(INPUT_PARTITIONER);
    }

    public int httpMaxUrlChars() {
        return Integer.parseInt(values.get(HTTP_MAX_URL_CHARS));
    }

    /** {@code baton.warmup.max-ms}: how long {@code run} may warm the hot path before it starts; zero: no warm-up. */
    public Duration warmupMaxTime() {
        return Duration.ofMillis(Long.parseLong(values.get(WARMUP_MAX_MS)));
    }

    public int httpMaxConcurrentQueries() {
        return Integer.parseInt(values.get(HTTP_MAX_CONCURRENT_QUERIES));
    }

    public String applicationId() {
        return values.get(StreamsConfig.APPLICATION_ID_CONFIG);
    }

    /**
     * The policy of tenants without a TenantPolicy record: the contract's defaults with {@code baton.policy.*}
     * applied, field by field from {@link PolicyField} (checked when the configuration is built).
     */
    public Policy defaultPolicy() {
        Policy.Builder b = Policy.defaults().toBuilder();
        for (PolicyField f : PolicyField.values()) {
            String v = values.get(POLICY_PREFIX + f.key());
            if (v == null) continue;
            f.set(b, f.type() == PolicyField.Type.TEXT ? v : (Object) Long.parseLong(v));
        }
        return b.build();
    }

    /** The effective value of any key (Baton or Kafka), or null. */
    public String get(String key) {
        return values.get(key);
    }

    /** Where the effective value of {@code key} came from (e.g. "environment BATON_FORMAT"), or null. */
    public String origin(String key) {
        return origins.get(key);
    }

    /** Every effective setting, Baton's and Kafka's (sorted by key). */
    public Map<String, String> asMap() {
        return new TreeMap<>(values);
    }

    /** Every non-{@code baton.*} setting: what the Kafka clients (producers, consumers, admin) get. */
    public Map<String, Object> kafkaProperties() {
        Map<String, Object> out = new TreeMap<>();
        values.forEach((k, v) -> {
            if (!k.startsWith("baton.")) out.put(k, v);
        });
        return out;
    }

    /**
     * Every Kafka setting (defaults included), without Baton's own keys. To run Baton's topology use
     * {@code BatonTopology.streamsProperties(config)}, which adds the exception handlers the topology needs.
     */
    public Properties toStreamsProperties() {
        Properties p = new Properties();
        p.putAll(kafkaProperties());
        return p;
    }

    // ---- building -------------------------------------------------------------------------------------------------

    /** Collects the sources in precedence order; {@link #build()} resolves and validates. */
    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();
        private final Map<String, String> origins = new LinkedHashMap<>();
        private final Set<String> explicit = new HashSet<>();

        private Builder() {
            SETTINGS.configKeys().values().forEach(s -> {
                // an unset baton.policy.* key keeps the contract's default (Policy.defaults()): not listed
                if (s.defaultValue != null && !s.name.startsWith(POLICY_PREFIX)) {
                    put(s.name, s.defaultValue.toString(), "built-in default", false);
                }
            });
        }

        /** Reads a properties file (Java properties syntax). Later sources override it. */
        public Builder file(Path file) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new BatonConfigException("cannot read the configuration file " + file + ": " + e.getMessage(),
                        e);
            }
            new TreeMap<>(p).forEach((k, v) -> put(k.toString().trim(), v.toString(), "file " + file, true));
            return this;
        }

        /** Applies the {@code BATON_*} variables of {@code env} (other variables are ignored). */
        public Builder environment(Map<String, String> env) {
            Map<String, String> byName = environmentNames();
            new TreeMap<>(env).forEach((name, value) -> {
                if (!name.startsWith("BATON_") || NON_SETTING_VARIABLES.contains(name)) return;
                String key = byName.get(name);
                if (key == null) {
                    String candidate = name.substring("BATON_".length()).toLowerCase(Locale.ROOT).replace('_', '.');
                    if (KAFKA_NAMES.contains(candidate)) key = candidate;
                }
                if (key == null) {
                    throw new BatonConfigException("unknown environment variable " + name
                            + ": it is neither a Baton setting nor a Kafka client setting (see docs/configuration.md)");
                }
                put(key, value, "environment " + name, true);
            });
            return this;
        }

        /** A command-line flag from {@link #FLAGS}, e.g. {@code flag("--format", "json")}. */
        public Builder flag(String flag, String value) {
            String key = FLAGS.get(flag);
            if (key == null) throw new BatonConfigException("unknown flag " + flag);
            put(key, value, "flag " + flag, true);
            return this;
        }

        /** A setting given on the command line by key (e.g. a repeatable {@code --set key=value}). */
        public Builder commandLine(String key, String value) {
            put(key, value, "command line " + key, true);
            return this;
        }

        /** A setting from code (tests, embedded mode); it wins over every source given before it. */
        public Builder set(String key, String value) {
            put(key, value, "code", true);
            return this;
        }

        private void put(String key, String value, String origin, boolean isExplicit) {
            if (value == null) throw new BatonConfigException(key + " has no value (from " + origin + ")");
            ConfigDef.ConfigKey s = setting(key);
            if (key.startsWith("baton.") && s == null) {
                throw new BatonConfigException("unknown setting " + key + " (from " + origin
                        + "); Baton's settings are listed in docs/configuration.md");
            }
            values.put(key, s == null ? value : check(s, value, origin));
            origins.put(key, origin);
            if (isExplicit) explicit.add(key);
        }

        public BatonConfig build() {
            Map<String, String> v = new LinkedHashMap<>(values);
            Map<String, String> o = new LinkedHashMap<>(origins);
            // Kafka's own dead-letter queue (KIP-1034) goes to Baton's dead-letter topic unless set otherwise.
            if (!explicit.contains(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG)) {
                v.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, v.get(DEAD_LETTERS_TOPIC));
                o.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG,
                        "built-in default (= " + DEAD_LETTERS_TOPIC + ")");
            }
            // Every record fits baton.max-output-bytes: the producer and the changelog topics accept that much.
            String max = v.get(MAX_OUTPUT_BYTES);
            for (String k : List.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, CHANGELOG_MAX_MESSAGE_BYTES)) {
                if (!explicit.contains(k)) {
                    v.put(k, max);
                    o.put(k, "built-in default (= " + MAX_OUTPUT_BYTES + ")");
                }
            }
            // Replicated changelogs tolerate the loss of one replica without losing an acknowledged write, whatever
            // the broker's default (Kafka's is 1): min.insync.replicas min(2, replication.factor - 1), as `baton
            // topics` sets on Baton's own topics. Replication factor 1 or -1 (the broker's default): not set.
            if (!explicit.contains(CHANGELOG_MIN_INSYNC_REPLICAS)) {
                int rf = parseIntOr(v.get(StreamsConfig.REPLICATION_FACTOR_CONFIG), -1);
                if (rf >= 2) {
                    v.put(CHANGELOG_MIN_INSYNC_REPLICAS, Integer.toString(Math.min(2, rf - 1)));
                    o.put(CHANGELOG_MIN_INSYNC_REPLICAS, "built-in default (= min(2, replication.factor - 1))");
                }
            }
            validate(v, o);
            BatonConfig config = new BatonConfig(v, o);
            validateLimits(config);
            return config;
        }

        private static int parseIntOr(String value, int fallback) {
            try {
                return value == null ? fallback : Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                return fallback; // validate() reports it
            }
        }

        private static void validateLimits(BatonConfig c) {
            int max = c.maxOutputBytes();
            for (String k : List.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, CHANGELOG_MAX_MESSAGE_BYTES)) {
                long given;
                try {
                    given = Long.parseLong(c.get(k).trim());
                } catch (NumberFormatException e) {
                    throw new BatonConfigException(k + "=" + c.get(k) + " (from " + c.origin(k) + ") is not a number");
                }
                if (given < max) {
                    throw new BatonConfigException("contradictory settings: " + k + "=" + given + " (from "
                            + c.origin(k) + ") is smaller than " + MAX_OUTPUT_BYTES + "=" + max + " (from "
                            + c.origin(MAX_OUTPUT_BYTES) + "): a record Baton may write would be refused; leave "
                            + k + " unset (it follows " + MAX_OUTPUT_BYTES + ") or lower " + MAX_OUTPUT_BYTES);
                }
            }
            // the default policy passes the same checks as a tenant's (TenantPolicyDecoder.validate)
            Policy defaults = c.defaultPolicy();
            List<String> problems = defaults.problems(JTokkitTokenizers.shared());
            if (!problems.isEmpty()) {
                throw new BatonConfigException("invalid default policy (" + POLICY_PREFIX + "*): "
                        + String.join("; ", problems));
            }
            String tooLarge = SnapshotFit.whyNot(defaults, c.snapshotEncoding(), max);
            if (tooLarge != null) {
                throw new BatonConfigException("the default policy (baton.policy.*) is refused: " + tooLarge
                        + " (from " + c.origin(MAX_OUTPUT_BYTES) + "); lower baton.policy.transcript_budget_chars or "
                        + "raise " + MAX_OUTPUT_BYTES);
            }
        }

        private void validate(Map<String, String> v, Map<String, String> o) {
            List<String> topics = List.of(SESSION_EVENTS_TOPIC, CONTEXT_SNAPSHOTS_TOPIC, DEAD_LETTERS_TOPIC,
                    TENANT_POLICIES_TOPIC, HANDOFF_RECEIPTS_TOPIC, HANDOFF_OUTCOMES_TOPIC);
            for (String t : topics) {
                if (!t.equals(TENANT_POLICIES_TOPIC) && !t.equals(HANDOFF_RECEIPTS_TOPIC) && v.get(t).isEmpty())
                    throw new BatonConfigException(t + " is empty (from " + o.get(t) + ")");
            }
            for (int i = 0; i < topics.size(); i++) {
                for (int j = i + 1; j < topics.size(); j++) {
                    String a = topics.get(i), b = topics.get(j);
                    if (!v.get(a).isEmpty() && v.get(a).equals(v.get(b))) {
                        throw new BatonConfigException("contradictory settings: " + a + "=" + v.get(a) + " (from "
                                + o.get(a) + ") and " + b + "=" + v.get(b) + " (from " + o.get(b)
                                + ") name the same topic; each topic must be distinct");
                    }
                }
            }
            if ("avro".equals(v.get(FORMAT)) && (v.get(SCHEMA_REGISTRY_URL) == null
                    || v.get(SCHEMA_REGISTRY_URL).isEmpty())) {
                throw new BatonConfigException("contradictory settings: " + FORMAT + "=avro (from " + o.get(FORMAT)
                        + ") needs " + SCHEMA_REGISTRY_URL + ", which is not set (give --schema-registry-url, "
                        + "BATON_SCHEMA_REGISTRY_URL or the file's " + SCHEMA_REGISTRY_URL
                        + "; mock://NAME for an in-memory registry), or use " + FORMAT + "=json");
            }
            // Kafka's own dead letters must not land in the input (a loop) or among the snapshots.
            String dlq = StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG;
            for (String t : List.of(SESSION_EVENTS_TOPIC, CONTEXT_SNAPSHOTS_TOPIC, TENANT_POLICIES_TOPIC,
                    HANDOFF_RECEIPTS_TOPIC, HANDOFF_OUTCOMES_TOPIC)) {
                if (v.get(t).equals(v.get(dlq))) {
                    throw new BatonConfigException("contradictory settings: " + dlq + "=" + v.get(dlq) + " (from "
                            + o.get(dlq) + ") and " + t + "=" + v.get(t) + " (from " + o.get(t)
                            + ") name the same topic");
                }
            }
        }
    }

    // ---- the settings table ---------------------------------------------------------------------------------------

    /** The known setting {@code key}, or null. */
    static ConfigDef.ConfigKey setting(String key) {
        return SETTINGS.configKeys().get(key);
    }

    /** The environment variable that sets {@code key}: {@code BATON_} + the key without {@code baton.}, upper case. */
    public static String environmentName(String key) {
        String k = key.startsWith("baton.") ? key.substring("baton.".length()) : key;
        return "BATON_" + k.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * {@code value} of a known setting checked against its type and validator; the normalized value (trimmed,
     * lower case for booleans and choices).
     */
    static String check(ConfigDef.ConfigKey setting, String value, String origin) {
        String v = value.trim();
        String at = setting.name + "=" + value + " (from " + origin + ")";
        switch (setting.type) {
            case INT, LONG -> {
                long n;
                try {
                    n = (Long) ConfigDef.parseType(setting.name, v, ConfigDef.Type.LONG);
                } catch (ConfigException e) {
                    throw new BatonConfigException(at + " is not a whole number");
                }
                BatonSettings.Bounds bounds = (BatonSettings.Bounds) setting.validator;
                try {
                    bounds.ensureValid(setting.name, n);
                } catch (ConfigException e) {
                    throw new BatonConfigException(at + " is out of range " + bounds.min() + ".." + bounds.max());
                }
                return Long.toString(n);
            }
            case BOOLEAN -> {
                try {
                    return ConfigDef.parseType(setting.name, v, ConfigDef.Type.BOOLEAN).toString();
                } catch (ConfigException e) {
                    throw new BatonConfigException(at + " is not a boolean (true or false)");
                }
            }
            default -> {
                if (!(setting.validator instanceof ConfigDef.ValidString choices)) return v;
                String c = v.toLowerCase(Locale.ROOT);
                try {
                    choices.ensureValid(setting.name, c);
                } catch (ConfigException e) {
                    String list = choices.toString();
                    throw new BatonConfigException(at + " is not one of " + list.substring(1, list.length() - 1));
                }
                return c;
            }
        }
    }

    /** The policy field a {@code baton.policy.*} key sets, or null. */
    public static PolicyField policyField(String key) {
        if (!key.startsWith(POLICY_PREFIX)) return null;
        for (PolicyField f : PolicyField.values()) {
            if (key.equals(POLICY_PREFIX + f.key())) return f;
        }
        return null;
    }

    /** Every Kafka client and Streams setting name: what a {@code BATON_*} variable may name besides Baton's. */
    private static final Set<String> KAFKA_NAMES = kafkaNames();

    private static Set<String> kafkaNames() {
        Set<String> names = new HashSet<>(StreamsConfig.configDef().names());
        names.addAll(ProducerConfig.configNames());
        names.addAll(ConsumerConfig.configNames());
        names.addAll(AdminClientConfig.configNames());
        return names;
    }

    private static Map<String, String> environmentNames() {
        Map<String, String> m = new LinkedHashMap<>();
        SETTINGS.names().forEach(k -> m.put(environmentName(k), k));
        return m;
    }

}
