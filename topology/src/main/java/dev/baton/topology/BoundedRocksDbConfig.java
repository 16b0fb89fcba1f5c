package dev.baton.topology;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

import java.util.Map;

/**
 * Bounds the off-heap memory of every RocksDB store of the instance (Kafka Streams' documented pattern): one LRU
 * block cache shared by all stores, of {@value #TOTAL_BYTES} bytes, that also holds the index and filter blocks and
 * is charged for the memtables through a shared {@link WriteBufferManager} of {@value #WRITE_BUFFER_BYTES} bytes.
 * However many tasks, stores and sessions an instance holds, RocksDB then uses about the first figure (plus small
 * per-store overheads). Registered by {@link BatonTopology#streamsProperties} as {@code rocksdb.config.setter}; the
 * two figures come from Baton's settings {@code baton.rocksdb.total.bytes} and
 * {@code baton.rocksdb.write-buffer.bytes}, copied into the Streams configuration under the same keys.
 */
public final class BoundedRocksDbConfig implements RocksDBConfigSetter {
    public static final String TOTAL_BYTES = "baton.rocksdb.total.bytes";
    public static final String WRITE_BUFFER_BYTES = "baton.rocksdb.write-buffer.bytes";
    /** Memtable size of one store (RocksDB's default is 64 MiB; the manager bounds the sum anyway). */
    static final long MEMTABLE_BYTES = 16L * 1024 * 1024;

    private static Cache cache;
    private static WriteBufferManager writeBuffers;
    private static long cacheBytes = -1;

    private static synchronized void shared(long total, long writeBuffer) {
        if (cache != null && cacheBytes == total) return;
        // High-priority pool of 10 % for the index and filter blocks; strict limit off (a full cache must not fail reads).
        cache = new LRUCache(total, -1, false, 0.1);
        writeBuffers = new WriteBufferManager(writeBuffer, cache);
        cacheBytes = total;
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        long total = number(configs.get(TOTAL_BYTES), 256L * 1024 * 1024);
        long writeBuffer = number(configs.get(WRITE_BUFFER_BYTES), 64L * 1024 * 1024);
        shared(total, Math.min(writeBuffer, total));
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(writeBuffers);
        options.setWriteBufferSize(Math.min(MEMTABLE_BYTES, Math.max(1L << 20, writeBuffer / 4)));
        options.setMaxWriteBufferNumber(2);
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(String storeName, Options options) {
        // the cache and the manager are shared by every store of the instance: never closed here
    }

    private static long number(Object v, long otherwise) {
        if (v == null) return otherwise;
        return v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
    }
}
