package dev.baton.processor;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global store {@code baton-tenant-policies}: per tenant_id, the raw bytes of the tenant's <em>last valid</em>
 * TenantPolicy record. Every record is checked here, when the table is updated: a valid one replaces the tenant's
 * entry, a tombstone (null value) removes it (back to the defaults), an invalid one is logged and leaves the last
 * valid one in place — "the tenant keeps its last good policy" (CONTRACT.md). A record without a key addresses no
 * tenant and is ignored.
 *
 * <p>So the policy in force is a function of the policies topic (and the configuration) alone: Kafka Streams runs
 * the records of a global store added with {@code Topology#addGlobalStore} through this processor on restore as well,
 * and the store is kept in memory, so every instance rebuilds it from the whole topic on every start, with the
 * configuration it runs with. Which policy a task saw before does not matter (docs/decisions.md).
 *
 * <p>A record cannot be dead-lettered from here (a global store's processor has no sink, docs/decisions.md): the
 * refusal is logged at WARN with the reason and counted ({@link MetricCatalogue#POLICY_RECORDS_REFUSED}), once per
 * record and start, on every instance. Write policies with a check first
 * ({@code TenantPolicyDecoder.validate}) so that a bad one never reaches the topic. A {@link DependencyUnavailableException}
 * (the schema registry cannot be reached) is not about the record: it is thrown, failing the global thread rather
 * than skipping a policy that may be valid.
 */
public final class TenantPolicyStoreUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(TenantPolicyStoreUpdater.class);

    private final String storeName;
    private final PolicyDecoder decoder;
    private KeyValueStore<String, byte[]> store;
    private TaskSensors metrics;

    /** @param decoder checks each record (the value it returns is not kept: the store holds the record's bytes) */
    public TenantPolicyStoreUpdater(String storeName, PolicyDecoder decoder) {
        this.storeName = storeName;
        this.decoder = decoder;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
        metrics = new TaskSensors(context.metrics(), context.taskId().toString(), "tenant-policies");
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) return; // not addressable: nothing to store
        if (record.value() == null) {
            store.delete(record.key());
            return;
        }
        try {
            decoder.decode(record.key(), record.value());
        } catch (IllegalArgumentException e) {
            LOG.warn("Tenant policy record of {} refused; the tenant keeps {}: {}", record.key(),
                    store.get(record.key()) != null ? "its last valid policy" : "the default policy", e.getMessage());
            metrics.policyRecordRefused();
            return;
        }
        store.put(record.key(), record.value());
    }

    @Override
    public void close() {
        if (metrics != null) metrics.close();
    }
}
