package dev.baton.config;

/** The view of the configuration that bounds RocksDB's memory ({@code baton.rocksdb.*}), per instance. */
public record RocksDbSettings(long totalBytes, long writeBufferBytes) {
}
