package dev.baton.processor;

import java.util.List;
import java.util.Set;

/**
 * The {@code tenant} label of the per-tenant cost metrics: a tenant of the allow-list ({@code baton.metrics.tenants})
 * is its own label, every other tenant is {@value #OTHER}, so that the label set stays bounded whatever the tenants.
 */
public record TenantLabels(Set<String> allowed) {
    public static final String OTHER = "other";

    public TenantLabels {
        allowed = Set.copyOf(allowed);
    }

    public static TenantLabels none() {
        return new TenantLabels(Set.of());
    }

    public String label(String tenantId) {
        return allowed.contains(tenantId) ? tenantId : OTHER;
    }

    /** Every label a metric can carry: the allow-list and {@value #OTHER}. */
    public List<String> all() {
        List<String> out = new java.util.ArrayList<>(new java.util.TreeSet<>(allowed));
        if (!allowed.contains(OTHER)) out.add(OTHER);
        return out;
    }
}
