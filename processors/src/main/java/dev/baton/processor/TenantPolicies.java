package dev.baton.processor;

import dev.baton.engine.policy.Policy;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resolves the {@link Policy} of a tenant from the global store {@code baton-tenant-policies} (tenant_id -> the raw
 * TenantPolicy bytes, exactly as on the topic). A tenant without a record gets {@code defaults}: the contract says
 * "missing policy means contract defaults".
 *
 * <p>The store keeps raw bytes rather than decoded policies because Kafka Streams restores a global store straight
 * from its topic, bypassing the store's processor: whatever the processor writes must be what the topic holds.
 * Decoding on every event would be wasteful, so decoded policies are cached per tenant and reused while the stored
 * bytes stay the same (a policy update changes the bytes and is picked up on the next event). A record that cannot
 * be read is rejected as a whole: the tenant keeps the last good policy this task saw (the defaults if none).
 */
public final class TenantPolicies {
    private static final Logger LOG = LoggerFactory.getLogger(TenantPolicies.class);
    private static final int CACHE_SIZE = 10_000;

    private final ReadOnlyKeyValueStore<String, byte[]> store;
    private final PolicyDecoder decoder;
    private final Policy defaults;
    private final Map<String, Cached> cache = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
            return size() > CACHE_SIZE;
        }
    };

    private record Cached(byte[] bytes, Policy policy) {
    }

    /** @param store may be null (no tenant-policies topic in this topology): every tenant gets the defaults */
    public TenantPolicies(ReadOnlyKeyValueStore<String, byte[]> store, PolicyDecoder decoder, Policy defaults) {
        this.store = store;
        this.decoder = decoder;
        this.defaults = defaults;
    }

    /** The tenant's effective policy. Never null. */
    public Policy forTenant(String tenantId) {
        if (store == null) return defaults;
        byte[] bytes = store.get(tenantId);
        if (bytes == null || bytes.length == 0) {
            cache.remove(tenantId);
            return defaults;
        }
        Cached cached = cache.get(tenantId);
        if (cached != null && Arrays.equals(cached.bytes, bytes)) return cached.policy;
        Policy policy;
        try {
            policy = decoder.decode(tenantId, bytes);
        } catch (IllegalArgumentException e) {
            // A bad record is rejected as a whole: the tenant keeps its last good policy (defaults if none seen).
            // Logged once per distinct bad record, because the cache then remembers the fallback for these bytes.
            policy = cached != null ? cached.policy : defaults;
            LOG.warn("Tenant policy of {} cannot be read; keeping {} until it is replaced: {}", tenantId,
                    cached != null ? "its last good policy" : "the default policy", e.toString());
        }
        cache.put(tenantId, new Cached(bytes, policy));
        return policy;
    }
}
