package dev.baton.consumer.dialect;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import dev.baton.consumer.dialect.SnapshotUnits.Call;

/**
 * The ids a dialect sends for the snapshot's own calls (docs/receivers.md, "Ids"): an id valid for the dialect and not
 * used by an earlier call of the request is kept; every other call gets {@code baton_n} (or Mistral's nine
 * characters), {@code n} the call's 1-based position, counting on past ids kept in the same request.
 */
final class CallIds {

    /** Anthropic Messages API, "Tool use" (tool_use.id): {@code ^[a-zA-Z0-9_-]+$}, at most 64 characters. */
    static final Pattern ANTHROPIC = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    /** vLLM's Mistral tool chat template (and Mistral's tokenizer): exactly 9 letters or digits. */
    static final Pattern MISTRAL = Pattern.compile("[a-zA-Z0-9]{9}");
    /** OpenAI Responses API: any non-empty call_id; only reuse within one request makes outputs ambiguous. */
    static final Pattern ANY = Pattern.compile(".+", Pattern.DOTALL);

    private final String[] ids;
    private final List<IdMapping> changed;

    private CallIds(String[] ids, List<IdMapping> changed) {
        this.ids = ids;
        this.changed = changed;
    }

    /** Ids as they are (dialects that change none). */
    static CallIds unchanged(List<Call> calls) {
        return new CallIds(calls.stream().map(Call::id).toArray(String[]::new), List.of());
    }

    /** {@code baton_n} ids for calls whose id is invalid or reused. */
    static CallIds batonN(List<Call> calls, Pattern valid) {
        return assign(calls, valid, n -> "baton_" + n);
    }

    /** Mistral's ids: {@code b} then n in base 36, left-padded with 0 to 8 characters. */
    static CallIds mistral(List<Call> calls) {
        return assign(calls, MISTRAL, n -> {
            String digits = Long.toString(n, 36);
            return "b" + "0".repeat(Math.max(0, 8 - digits.length())) + digits;
        });
    }

    private static CallIds assign(List<Call> calls, Pattern valid, java.util.function.LongFunction<String> newId) {
        boolean[] kept = new boolean[calls.size()];
        Set<String> taken = new HashSet<>();
        for (Call c : calls) {
            if (valid.matcher(c.id()).matches() && taken.add(c.id())) {
                kept[c.index()] = true;
            }
        }
        String[] ids = new String[calls.size()];
        List<IdMapping> changed = new ArrayList<>();
        for (Call c : calls) {
            if (kept[c.index()]) {
                ids[c.index()] = c.id();
                continue;
            }
            // n is the call's position; an id kept in the request (or already given) is skipped
            long n = c.index() + 1L;
            while (taken.contains(newId.apply(n))) {
                n++;
            }
            String mapped = newId.apply(n);
            taken.add(mapped);
            ids[c.index()] = mapped;
            changed.add(new IdMapping(c.index() + 1, c.id(), mapped));
        }
        return new CallIds(ids, List.copyOf(changed));
    }

    String of(Call call) {
        return ids[call.index()];
    }

    List<IdMapping> changed() {
        return changed;
    }
}
