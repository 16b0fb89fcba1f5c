package dev.baton.processor;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the global store {@code baton-tenant-policies} equal to the compacted topic: the raw TenantPolicy bytes per
 * tenant_id, a tombstone (null value) removes the tenant's policy. Decoding happens at lookup
 * ({@link TenantPolicies}), so a restore from the topic (which bypasses this processor) yields the same store.
 */
public final class TenantPolicyStoreUpdater implements Processor<String, byte[], Void, Void> {
    private final String storeName;
    private KeyValueStore<String, byte[]> store;

    public TenantPolicyStoreUpdater(String storeName) {
        this.storeName = storeName;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) return; // not addressable: nothing to store
        if (record.value() == null) store.delete(record.key());
        else store.put(record.key(), record.value());
    }
}
