package dev.baton.engine.snapshot;

import dev.baton.engine.model.ToolCall;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PrefixPrint#compare} walks the message stream in runs between block ends, not char by char: it must give
 * the print (length, hash at the end, every block's hash) and the stable prefix that the plain definition gives —
 * one FNV-1a step per UTF-16 unit with the block and target checks after each ({@link Reference}, the form the
 * class's documentation describes). Prints are stored in the session state, so a different hash would also make
 * the first snapshot after an upgrade report a wrong figure.
 */
class PrefixPrintProperties {

    @Provide
    Arbitrary<List<Message>> messages() {
        // long texts, so that streams cross many block ends and the walk's 4,096-char runs; some non-Latin-1 chars
        Arbitrary<String> text = Arbitraries.oneOf(
                Arbitraries.strings().withChars("ab c\n\"é").ofMaxLength(40),
                Arbitraries.strings().withChars("abcdefgh ij\n").ofMinLength(900).ofMaxLength(5_000),
                Arbitraries.strings().withChars("xy€\uD83D\uDE00z").ofMinLength(1_000).ofMaxLength(9_000));
        Arbitrary<String> mark = Arbitraries.of("user", "assistant", "tool", "qwen").injectNull(0.3);
        Arbitrary<List<ToolCall>> calls = Combinators.combine(mark, Arbitraries.of("read", "grep"), text)
                .as(ToolCall::new).list().ofMaxSize(2);
        return Combinators.combine(Arbitraries.of("user", "assistant", "tool"), mark, text, calls, mark)
                .as(Message::new).list().ofMaxSize(12);
    }

    @Property(tries = 200)
    void shouldPrintWhatTheCharByCharDefinitionPrints(@ForAll("messages") List<Message> before,
                                                      @ForAll("messages") List<Message> tail,
                                                      @ForAll @IntRange(min = 0, max = 12) int keep) {
        // the next snapshot starts with some of the previous one's messages, as it does when the window moves
        List<Message> after = new ArrayList<>(before.subList(0, Math.min(keep, before.size())));
        after.addAll(tail);
        PrefixPrint.Comparison first = PrefixPrint.compare(before, null, 7, false);
        Reference.Result firstRef = Reference.walk(before, -1);
        assertSame(first.print(), firstRef);
        assertThat(first.stableChars()).isNull();

        PrefixPrint.Comparison second = PrefixPrint.compare(after, first.print(), -1, true);
        Reference.Result secondRef = Reference.walk(after, firstRef.length);
        assertSame(second.print(), secondRef);
        assertThat(second.stableChars()).isEqualTo(Reference.stable(firstRef, secondRef));
    }

    @Property(tries = 100)
    void shouldFindTheWholePreviousStreamWhenItIsAPrefix(@ForAll("messages") List<Message> before,
                                                         @ForAll("messages") List<Message> more) {
        List<Message> after = new ArrayList<>(before);
        after.addAll(more);
        PrefixPrint previous = PrefixPrint.compare(before, null, -1, false).print();
        assertThat(PrefixPrint.compare(after, previous, -1, false).stableChars()).isEqualTo(previous.length());
    }

    private static void assertSame(PrefixPrint print, Reference.Result ref) {
        assertThat(print.length()).isEqualTo(ref.length);
        assertThat(print.endHash()).isEqualTo(ref.endHash);
        long[] blocks = new long[print.blockCount()];
        for (int i = 0; i < blocks.length; i++) blocks[i] = print.block(i);
        assertThat(blocks).containsExactly(ref.blocks.stream().mapToLong(Long::longValue).toArray());
    }

    /** The walk as the class documents it, one char at a time (the form the stored prints were made with). */
    static final class Reference {
        record Result(long length, long endHash, List<Long> blocks, long atTarget) {
        }

        static Result walk(List<Message> messages, long target) {
            Reference w = new Reference(target);
            for (Message m : messages) {
                w.mark(m.role());
                w.mark(m.name());
                w.mark(m.toolCallId());
                w.chars(m.content());
                for (ToolCall c : m.toolCalls()) {
                    w.mark(c.callId());
                    w.chars(c.tool());
                    w.hash = mix(w.hash ^ 0x27d4eb2f165667c5L);
                    w.chars(c.arguments());
                }
            }
            return new Result(w.count, w.lastCharHash, w.blocks, w.atTarget);
        }

        static Long stable(Result previous, Result current) {
            if (previous.length == 0) return 0L;
            if (previous.length <= current.length && current.atTarget == previous.endHash) return previous.length;
            int k = 0;
            while (k < Math.min(previous.blocks.size(), current.blocks.size())
                    && previous.blocks.get(k).equals(current.blocks.get(k))) k++;
            return (long) k * PrefixPrint.BLOCK_CHARS;
        }

        final long target;
        long hash = 0xcbf29ce484222325L;
        long count;
        long lastCharHash = 0xcbf29ce484222325L;
        long atTarget;
        final List<Long> blocks = new ArrayList<>();

        Reference(long target) {
            this.target = target;
        }

        void mark(String s) {
            if (s == null) {
                hash = mix(hash ^ 0x5bd1e9955bd1e995L);
                return;
            }
            hash = mix(hash + 0x9e3779b97f4a7c15L * (s.length() + 1L));
            for (int i = 0; i < s.length(); i++) hash = (hash ^ s.charAt(i)) * 0x100000001b3L;
            hash = mix(hash);
        }

        void chars(String s) {
            for (int i = 0; i < s.length(); i++) {
                hash = (hash ^ s.charAt(i)) * 0x100000001b3L;
                count++;
                if (count % PrefixPrint.BLOCK_CHARS == 0) blocks.add(hash);
                if (count == target) atTarget = hash;
                lastCharHash = hash;
            }
        }

        static long mix(long z) {
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            return z ^ (z >>> 33);
        }
    }
}
