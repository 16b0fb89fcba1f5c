package dev.baton.processor;

import dev.baton.engine.policy.Policy;

/**
 * Turns the bytes of a {@code TenantPolicy} record (topic {@code baton.tenant-policies}) into the engine's
 * {@link Policy}. A tenant policy overrides any subset of the budgets: fields it leaves unset keep the value of
 * {@code defaults} (the contract's defaults as adjusted by the {@code baton.policy.*} settings).
 *
 * <p>Implementations throw on bytes they cannot read; the caller then falls back to {@code defaults} and logs.
 */
@FunctionalInterface
public interface PolicyDecoder {
    Policy decode(byte[] tenantPolicy, Policy defaults);
}
