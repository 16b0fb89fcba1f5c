package dev.baton.replay;

import dev.baton.app.AppFailure;
import dev.baton.app.ExitCodes;
import dev.baton.app.StreamsApp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.streams.StreamsConfig;

import dev.baton.config.BatonConfig;
import dev.baton.deadletter.DeadLetterHeaders;
import dev.baton.processor.SessionContextProcessor;
import dev.baton.replay.embedded.EmbeddedKafka;

/**
 * Runs a finite set of input records through the real Baton topology and collects everything it
 * writes: the engine behind {@code baton demo} and {@code baton backfill}.
 *
 * <ol>
 *   <li>{@link #open}: a broker (in-process, or the given cluster with private topics), the topics,
 *       and the topology running in this JVM with Kafka Streams (exactly-once);</li>
 *   <li>{@link #send} the input records, then {@link #settle} every session (the end-of-input control
 *       record: gaps and waiting hand-offs are settled at once, no wall clock);</li>
 *   <li>{@link #awaitProcessed}: until the application has committed every input offset, which under
 *       exactly-once means every output of those records is committed too;</li>
 *   <li>{@link #collect}: the snapshots and dead letters, in partition order.</li>
 * </ol>
 */
final class Replay implements AutoCloseable {

  /** Large records are Baton's to judge (OVERSIZED), not the broker's: allow up to 16 MiB in transit. */
  static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  /**
   * @param bootstrapServers a cluster to use, or null for a broker inside this process
   * @param baseConfig       Kafka client settings for that cluster (security etc.); may be empty
   * @param format           value format on the topics: {@code avro} or {@code json}
   * @param registryUrl      schema registry URL for avro, else null
   * @param runName          names the application and, on a real cluster, prefixes the private topics
   * @param partitions       partitions of the input and output topics
   */
  record Settings(String bootstrapServers, Map<String, String> baseConfig, String format, String registryUrl,
      String runName, int partitions) {
  }

  /** A record the topology wrote, with where it sits in its topic. */
  record Output(int partition, long offset, byte[] key, byte[] value, Map<String, String> headers) {
  }

  /** Where an input record landed. */
  record Position(int partition, long offset) {
  }

  private final Settings settings;
  private final EmbeddedKafka embedded;
  private final String bootstrapServers;
  private final BatonConfig config;
  private final Map<String, Object> clientConfig;
  private final Path stateDir;
  private final boolean privateTopics;
  private final StreamsApp app;
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<Future<RecordMetadata>> pending = new ArrayList<>();
  private final List<Long> pendingTags = new ArrayList<>();
  private final Map<Position, Long> tagsByPosition = new HashMap<>();
  private long sent;

  private Replay(Settings settings) {
    this.settings = settings;
    EmbeddedKafka broker = null;
    Path state = null;
    StreamsApp streams = null;
    KafkaProducer<byte[], byte[]> prod = null;
    try {
      privateTopics = settings.bootstrapServers() != null;
      if (settings.bootstrapServers() == null) {
        broker = EmbeddedKafka.start(Map.of(
            "message.max.bytes", Integer.toString(MAX_MESSAGE_BYTES),
            "replica.fetch.max.bytes", Integer.toString(MAX_MESSAGE_BYTES)));
        bootstrapServers = broker.bootstrapServers();
      } else {
        bootstrapServers = settings.bootstrapServers();
      }
      state = Files.createTempDirectory("baton-state-");
      config = buildConfig(settings, bootstrapServers, state);
      clientConfig = clientConfig(config);
      createTopics();
      streams = new StreamsApp(config);
      streams.start();
      streams.awaitRunning(Duration.ofSeconds(90));
      prod = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
    } catch (RuntimeException | IOException e) {
      if (prod != null) {
        prod.close(Duration.ZERO);
      }
      if (streams != null) {
        streams.close(Duration.ofSeconds(10));
      }
      deleteRecursively(state);
      if (broker != null) {
        broker.close();
      }
      if (e instanceof AppFailure cli) {
        throw cli;
      }
      throw new AppFailure(ExitCodes.FAILED, "cannot start the pipeline: " + e.getMessage(), e);
    }
    this.embedded = broker;
    this.stateDir = state;
    this.app = streams;
    this.producer = prod;
  }

  /** Starts the broker (unless one is given), creates the topics and starts the topology. */
  static Replay open(Settings settings) {
    return new Replay(settings);
  }

  private static BatonConfig buildConfig(Settings settings, String bootstrapServers, Path stateDir) {
    BatonConfig.Builder builder = BatonConfig.builder();
    settings.baseConfig().forEach(builder::set);
    String prefix = topicPrefix(settings);
    builder.set(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers)
        .set(StreamsConfig.APPLICATION_ID_CONFIG, settings.runName())
        .set(BatonConfig.FORMAT, settings.format())
        .set(BatonConfig.SESSION_EVENTS_TOPIC, prefix + "baton.session-events")
        .set(BatonConfig.CONTEXT_SNAPSHOTS_TOPIC, prefix + "baton.context-snapshots")
        .set(BatonConfig.DEAD_LETTERS_TOPIC, prefix + "baton.dead-letters")
        // no tenant policies in a replay: the defaults (and baton.policy.* settings) apply
        .set(BatonConfig.TENANT_POLICIES_TOPIC, "")
        // the end of the input settles everything (control records), never the wall clock
        .set(BatonConfig.PUNCTUATE_WALL_CLOCK, "false")
        .set(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString())
        .set(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "0")
        .set(StreamsConfig.PRODUCER_PREFIX + ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_MESSAGE_BYTES));
    if (settings.bootstrapServers() == null) {
      builder.set(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
    }
    if (settings.registryUrl() != null) {
      builder.set(BatonConfig.SCHEMA_REGISTRY_URL, settings.registryUrl());
    }
    return builder.build();
  }

  private static String topicPrefix(Settings settings) {
    // on a real cluster, never touch the production topics: a private set per run
    return settings.bootstrapServers() == null ? "" : settings.runName() + ".";
  }

  /** The Kafka settings every plain client gets (security and the like), without Streams-only keys. */
  private static Map<String, Object> clientConfig(BatonConfig config) {
    Set<String> known = new java.util.HashSet<>(AdminClientConfig.configNames());
    known.addAll(ProducerConfig.configNames());
    known.addAll(ConsumerConfig.configNames());
    Map<String, Object> out = new HashMap<>();
    config.kafkaProperties().forEach((k, v) -> {
      if (known.contains(k)) {
        out.put(k, v);
      }
    });
    return out;
  }

  private Map<String, Object> only(Set<String> names) {
    Map<String, Object> out = new HashMap<>();
    clientConfig.forEach((k, v) -> {
      if (names.contains(k)) {
        out.put(k, v);
      }
    });
    out.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return out;
  }

  private Admin admin() {
    return Admin.create(only(AdminClientConfig.configNames()));
  }

  private Map<String, Object> producerConfig() {
    Map<String, Object> props = only(ProducerConfig.configNames());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_MESSAGE_BYTES));
    return props;
  }

  private void createTopics() {
    Optional<Short> replication = settings.bootstrapServers() == null ? Optional.of((short) 1) : Optional.empty();
    List<NewTopic> topics = List.of(
        new NewTopic(config.sessionEventsTopic(), Optional.of(settings.partitions()), replication),
        new NewTopic(config.contextSnapshotsTopic(), Optional.of(settings.partitions()), replication),
        new NewTopic(config.deadLettersTopic(), Optional.of(settings.partitions()), replication));
    Map<String, String> topicConfig = Map.of("max.message.bytes", Integer.toString(MAX_MESSAGE_BYTES));
    topics.forEach(t -> t.configs(topicConfig));
    try (Admin admin = admin()) {
      for (var entry : admin.createTopics(topics).values().entrySet()) {
        try {
          entry.getValue().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException) || privateTopics) {
            throw new AppFailure(ExitCodes.FAILED, "cannot create topic " + entry.getKey() + ": "
                + e.getCause().getMessage(), e.getCause());
          }
        } catch (Exception e) {
          throw new AppFailure(ExitCodes.FAILED, "cannot create topic " + entry.getKey() + ": " + e, e);
        }
      }
    }
  }

  BatonConfig config() {
    return config;
  }

  StreamsApp app() {
    return app;
  }

  /** Sends one input record; {@code tag} (e.g. the input line) comes back from {@link #tagOf}. */
  void send(byte[] key, byte[] value, long tag) {
    send(new ProducerRecord<>(config.sessionEventsTopic(), null, key, value), tag);
  }

  /** Sends the end-of-input signal for one session ({@code tenant/session}). */
  void settle(String sessionKey) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(SessionContextProcessor.CONTROL_HEADER,
        SessionContextProcessor.SETTLE.getBytes(StandardCharsets.UTF_8));
    send(new ProducerRecord<>(config.sessionEventsTopic(), null, null,
        sessionKey.getBytes(StandardCharsets.UTF_8), new byte[0], headers), -1);
  }

  private void send(ProducerRecord<byte[], byte[]> record, long tag) {
    app.throwIfFailed();
    pending.add(producer.send(record));
    pendingTags.add(tag);
    sent++;
    if (pending.size() >= 10_000) {
      resolvePending();
    }
  }

  private void resolvePending() {
    for (int i = 0; i < pending.size(); i++) {
      try {
        RecordMetadata meta = pending.get(i).get();
        if (pendingTags.get(i) >= 0) {
          tagsByPosition.put(new Position(meta.partition(), meta.offset()), pendingTags.get(i));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
      } catch (ExecutionException e) {
        throw new AppFailure(ExitCodes.FAILED, "cannot write to " + config.sessionEventsTopic() + ": "
            + e.getCause().getMessage(), e.getCause());
      }
    }
    pending.clear();
    pendingTags.clear();
  }

  /** The tag given to {@link #send} for the input record at this position, or -1. */
  long tagOf(int partition, long offset) {
    return tagsByPosition.getOrDefault(new Position(partition, offset), -1L);
  }

  /** Records sent so far (input and control records). */
  long sent() {
    return sent;
  }

  /**
   * Waits until the application has committed every record sent; reports the number processed.
   *
   * @return true when done, false on timeout
   */
  boolean awaitProcessed(Duration timeout, LongConsumer processed) {
    producer.flush();
    resolvePending();
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < settings.partitions(); p++) {
        latest.put(new TopicPartition(config.sessionEventsTopic(), p), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      long total = ends.values().stream().mapToLong(Long::longValue).sum();
      while (true) {
        app.throwIfFailed();
        Map<TopicPartition, OffsetAndMetadata> committed = admin
            .listConsumerGroupOffsets(config.applicationId()).partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
        long done = 0;
        boolean all = true;
        for (var end : ends.entrySet()) {
          OffsetAndMetadata c = committed.get(end.getKey());
          long position = c == null ? 0 : c.offset();
          done += Math.min(position, end.getValue());
          all &= position >= end.getValue();
        }
        processed.accept(Math.min(done, total));
        if (all) {
          return true;
        }
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AppFailure(ExitCodes.INTERRUPTED, "interrupted");
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new AppFailure(ExitCodes.FAILED, "cannot follow the application's progress: " + e, e);
    }
  }

  /** Every committed record of the snapshots topic, partition by partition, in offset order. */
  List<Output> snapshots() {
    return readAll(config.contextSnapshotsTopic());
  }

  /** Every committed record of the dead-letter topic, partition by partition, in offset order. */
  List<Output> deadLetters() {
    return readAll(config.deadLettersTopic());
  }

  private List<Output> readAll(String topic) {
    Map<String, Object> props = only(ConsumerConfig.configNames());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(MAX_MESSAGE_BYTES));
    List<Output> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < settings.partitions(); p++) {
        partitions.add(new TopicPartition(topic, p));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // under read_committed the end offsets are the last stable offsets
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(60));
      Map<TopicPartition, List<Output>> byPartition = new HashMap<>();
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (!reachedEnd(consumer, ends)) {
        if (System.nanoTime() > deadline) {
          throw new AppFailure(ExitCodes.FAILED, "cannot read " + topic + " to its end");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Map<String, String> headers = new HashMap<>();
          for (Header h : r.headers()) {
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
          }
          byPartition.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
              .add(new Output(r.partition(), r.offset(), r.key(), r.value(), headers));
        }
      }
      for (TopicPartition tp : partitions) {
        out.addAll(byPartition.getOrDefault(tp, List.of()));
      }
    }
    return out;
  }

  private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
    for (var e : ends.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** The input position a dead letter names, or null when it names none. */
  static Position sourceOf(Output deadLetter) {
    try {
      return new Position(Integer.parseInt(deadLetter.headers().get(DeadLetterHeaders.SOURCE_PARTITION)),
          Long.parseLong(deadLetter.headers().get(DeadLetterHeaders.SOURCE_OFFSET)));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Baton's counters summed over every task of the application. */
  Map<String, Double> counters() {
    return app.batonCounters();
  }

  @Override
  public void close() {
    try {
      producer.close(Duration.ofSeconds(10));
    } catch (RuntimeException ignored) {
      // closing is best effort
    }
    app.close(Duration.ofSeconds(30));
    if (privateTopics) {
      deletePrivateResources();
    }
    deleteRecursively(stateDir);
    if (embedded != null) {
      embedded.close();
    }
  }

  /** On a real cluster: the run's topics, its internal topics and its consumer group. */
  private void deletePrivateResources() {
    try (Admin admin = admin()) {
      Collection<String> names = admin.listTopics().names().get(60, TimeUnit.SECONDS).stream()
          .filter(n -> n.startsWith(settings.runName() + ".") || n.startsWith(settings.runName() + "-"))
          .toList();
      admin.deleteTopics(names).all().get(60, TimeUnit.SECONDS);
      admin.deleteConsumerGroups(List.of(config.applicationId())).all().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("baton: could not delete the backfill's topics (prefix " + settings.runName()
          + "): " + e.getMessage());
    }
  }

  static void deleteRecursively(Path root) {
    EmbeddedKafka.deleteRecursively(root);
  }
}
