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
 * bytes of the tenant's last valid TenantPolicy record, kept by {@link TenantPolicyStoreUpdater}). A tenant without a
 * record gets {@code defaults}: the contract says "missing policy means contract defaults".
 *
 * <p>Decoding on every event would be wasteful, so decoded policies are memoized per tenant while the stored bytes
 * stay the same (a policy update changes the bytes and is picked up on the next event). The memo only saves work: the
 * answer depends on the stored bytes alone, never on what this task saw before.
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
            // The store holds only records its updater found valid with this configuration, so this is a bug; the
            // answer still depends on the bytes alone (the memo keeps it for these bytes, logged once).
            policy = defaults;
            LOG.error("Stored tenant policy of {} cannot be read; using the default policy: {}", tenantId, e.toString());
        }
        cache.put(tenantId, new Cached(bytes, policy));
        return policy;
    }
}
