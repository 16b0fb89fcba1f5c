package dev.baton.processor;

import dev.baton.engine.policy.Policy;

/**
 * Turns the bytes of a {@code TenantPolicy} record (topic {@code baton.tenant-policies}) into the engine's
 * {@link Policy}: the application's default policy with every field the record sets applied.
 *
 * <p>Implementations throw {@link IllegalArgumentException} for a record they cannot read or that is invalid (the
 * store's updater then keeps the tenant's last valid policy), and a {@link DependencyUnavailableException} when something
 * they depend on (a schema registry) cannot be reached: that says nothing about the record and must fail the task.
 */
@FunctionalInterface
public interface PolicyDecoder {
    Policy decode(String tenantId, byte[] tenantPolicy);
}
