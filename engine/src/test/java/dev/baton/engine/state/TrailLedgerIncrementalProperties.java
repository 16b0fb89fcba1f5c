package dev.baton.engine.state;

import dev.baton.engine.policy.Policy;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R3's compaction of the trail ledger: the incremental {@link TrailLedger#update} (a walk over the unmanifested
 * prefix and a running sum of the manifest's line sizes) leaves the same ledger, records the same journal and returns
 * the same newly manifested seqs as {@link TrailLedger#updateByFullWalk} (the whole walk), after any sequence of new
 * trails, legacy results that grow a trail's bytes, policies (tiny caps that drop entries, a changed policy between
 * turns), compaction on or off, and read-backs (the running sum forgotten, as after a load).
 */
class TrailLedgerIncrementalProperties {

    /** One step: a new trail, a legacy result on an existing one, or a read-back; then an update under a policy. */
    record Op(int kind, int bytes, int tools, int target, int policy) {
    }

    private static final Policy[] POLICIES = {
            Policy.defaults(),
            Policy.builder().expandedTrailTurns(2).inlineTrailBytes(300).manifestCapChars(120).build(),
            Policy.builder().expandedTrailTurns(0).inlineTrailBytes(0).manifestCapChars(40).build(),
            Policy.builder().expandedTrailTurns(5).inlineTrailBytes(1_000).manifestCapChars(1).build(),
            Policy.builder().expandedTrailTurns(1).inlineTrailBytes(50).manifestCapChars(0).build(),
            Policy.builder().expandedTrailTurns(3).inlineTrailBytes(2_000).manifestCapChars(400).build(),
    };

    @Provide
    Arbitrary<Op> op() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 9),
                Arbitraries.oneOf(Arbitraries.integers().between(0, 40), Arbitraries.integers().between(0, 3_000)),
                Arbitraries.integers().between(1, 4),
                Arbitraries.integers().between(0, 1_000),
                Arbitraries.integers().between(0, POLICIES.length - 1)).as(Op::new);
    }

    @Property(tries = 400)
    void incrementalUpdateEqualsTheFullWalk(@ForAll @Size(max = 120) List<@net.jqwik.api.From("op") Op> ops,
                                            @ForAll boolean compaction, @ForAll boolean onePolicy) {
        TrailLedger incremental = new TrailLedger();
        TrailLedger full = new TrailLedger();
        incremental.journal = new StateJournal();
        full.journal = new StateJournal();
        long seq = 0;
        int step = 0;
        for (Op op : ops) {
            Policy policy = POLICIES[onePolicy ? 1 : op.policy()];
            if (op.kind() == 0) {
                incremental.manifestChars = -1; // read back from its entries
            } else if (op.kind() <= 2 && !full.trails.isEmpty()) {
                // a legacy result adds the answering text's bytes to its calling turn's trail, wherever it is
                int i = op.target() % full.trails.size();
                full.addBytes(full.trails.get(i), op.bytes());
                incremental.addBytes(incremental.trails.get(i), op.bytes());
            } else {
                seq += 1 + op.target() % 3;
                List<String> tools = new ArrayList<>();
                for (int t = 0; t < op.tools(); t++) tools.add("tool_" + (op.target() + t) % 7);
                String agent = "agent" + op.target() % 3;
                full.add(new TrailEntry(seq, agent, tools, op.bytes()));
                incremental.add(new TrailEntry(seq, agent, tools, op.bytes()));
            }
            List<Long> a = incremental.update(policy, compaction);
            List<Long> b = full.updateByFullWalk(policy, compaction);
            String at = "step " + step++ + " " + op;
            assertThat(a).as(at).isEqualTo(b);
            assertThat(describe(incremental)).as(at).isEqualTo(describe(full));
            assertThat(incremental.journal.drain()).as(at).isEqualTo(full.journal.drain());
            long sum = 0;
            for (TrailEntry e : incremental.trails) if (e.manifested) sum += ManifestLine.length(e) + 1;
            assertThat(incremental.manifestChars).as(at + ": the running sum").isEqualTo(sum);
            long bytes = 0;
            int count = 0;
            for (TrailEntry e : incremental.trails) {
                if (!e.manifested) {
                    bytes += e.bytes;
                    count++;
                }
            }
            assertThat(incremental.unmanifestedBytes).as(at + ": the unmanifested bytes").isEqualTo(bytes);
            assertThat(incremental.unmanifested).as(at + ": the unmanifested entries").isEqualTo(count);
        }
    }

    private static List<String> describe(TrailLedger l) {
        List<String> out = new ArrayList<>();
        for (TrailEntry e : l.trails) out.add(ManifestLine.of(e) + " " + e.bytes + (e.manifested ? " M" : ""));
        out.add("unlisted " + l.manifestUnlisted);
        return out;
    }
}
