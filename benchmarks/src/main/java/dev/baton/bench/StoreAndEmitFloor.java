package dev.baton.bench;

import dev.baton.ingest.Decoded;
import dev.baton.ingest.SessionEventDecoder;
import dev.baton.processor.InboundEvent;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;

/**
 * The store-and-emit floor: the least any design that emits Baton's snapshots must do. Each event is {@code put}
 * once into one changelogged, cached RocksDB store, exactly as the store-only floor does
 * ({@link EndToEndHarness#storeOnlyFloor}, same decoder, same keys: session, then {@code 'T'} and the seq
 * big-endian, so one session's turns are one contiguous key range in seq order). At every hand-off it then
 * <ol>
 *   <li>range-scans the session's stored turns, newest first, and copies their stored values into one output value
 *       of <b>exactly</b> the size Baton emits for that hand-off ({@link EmittedSizes}, rendered before timing),
 *       stopping once it is full (a snapshot holds the session's tail; a session shorter than the snapshot is
 *       copied again from its newest turn until the value is full);</li>
 *   <li>computes the SHA-256 of that value (Baton's content hash is a SHA-256 over about as many bytes);</li>
 *   <li>forwards one record, keyed like Baton's (the session key's UTF-8), to its own output topic.</li>
 * </ol>
 * Nothing is rendered, parsed beyond the record's seq, or kept besides the store.
 */
final class StoreAndEmitFloor {
    static final String STORE = "bench-emit-floor-store";

    private StoreAndEmitFloor() {
    }

    static Topology topology(String inputTopic, String outputTopic, SessionEventDecoder decoder, EmittedSizes sizes) {
        Topology t = new Topology();
        t.addSource("bench-emit-floor-source", new ByteArrayDeserializer(), new ByteArrayDeserializer(), inputTopic);
        t.addProcessor("bench-emit-floor-process", () -> new Emit(decoder, sizes), "bench-emit-floor-source");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingEnabled(Map.of()).withCachingEnabled(), "bench-emit-floor-process");
        t.addSink("bench-emit-floor-sink", outputTopic, new ByteArraySerializer(), new ByteArraySerializer(),
                "bench-emit-floor-process");
        return t;
    }

    /** The session's first and last possible turn keys: {@code session 0x00 'T'} and seq 0 / Long.MAX_VALUE. */
    static Bytes turnKey(byte[] session, long seq) {
        return Bytes.wrap(ByteBuffer.allocate(session.length + 10).put(session).put((byte) 0).put((byte) 'T')
                .putLong(seq).array());
    }

    private static final class Emit implements Processor<byte[], byte[], byte[], byte[]> {
        private final SessionEventDecoder decoder;
        private final EmittedSizes sizes;
        private final MessageDigest sha256;
        private KeyValueStore<Bytes, byte[]> store;
        private ProcessorContext<byte[], byte[]> context;

        Emit(SessionEventDecoder decoder, EmittedSizes sizes) {
            this.decoder = decoder;
            this.sizes = sizes;
            try {
                this.sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
            this.store = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            Decoded decoded = decoder.decode(record.key(), record.value());
            if (!decoded.accepted()) throw new IllegalStateException("the floor could not read a record: "
                    + decoded.message());
            InboundEvent event = decoded.event();
            store.put(Bytes.wrap(EndToEndHarness.floorKey(event)), record.value());
            if (event.handoff() == null) return;

            String sessionKey = event.sessionKey();
            byte[] session = sessionKey.getBytes(StandardCharsets.UTF_8);
            byte[] out = new byte[sizes.of(sessionKey, event.handoff().handoffId())];
            int filled = 0;
            while (filled < out.length) {
                int before = filled;
                try (KeyValueIterator<Bytes, byte[]> it = store.reverseRange(turnKey(session, 0),
                        turnKey(session, Long.MAX_VALUE))) {
                    while (filled < out.length && it.hasNext()) {
                        KeyValue<Bytes, byte[]> kv = it.next();
                        int n = Math.min(kv.value.length, out.length - filled);
                        System.arraycopy(kv.value, 0, out, filled, n);
                        filled += n;
                    }
                }
                if (filled == before) break; // no turn stored yet: the value stays zeros
            }
            // the digest's bytes go into the value, as a content hash goes into a snapshot
            byte[] digest = sha256.digest(out);
            System.arraycopy(digest, 0, out, 0, Math.min(digest.length, out.length));
            context.forward(new Record<>(session, out, record.timestamp()));
        }
    }
}
