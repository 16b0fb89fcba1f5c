package dev.baton.cli.data;

import dev.baton.avro.ContextSnapshot;

/**
 * Which snapshots {@code baton tail} shows: each given criterion must match (null means any). {@code toAgent} is the
 * receiver; {@code synthetic} matches the snapshot's {@code synthetic} flag (absent counts as false).
 */
public record SnapshotFilter(String tenantId, String sessionId, String toAgent, Boolean synthetic) {

    public boolean matches(ContextSnapshot s) {
        return (tenantId == null || tenantId.equals(s.getTenantId()))
                && (sessionId == null || sessionId.equals(s.getSessionId()))
                && (toAgent == null || toAgent.equals(s.getToAgent()))
                && (synthetic == null || synthetic == Boolean.TRUE.equals(s.getSynthetic()));
    }
}
