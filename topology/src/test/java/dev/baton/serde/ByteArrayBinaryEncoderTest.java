package dev.baton.serde;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ByteArrayBinaryEncoder} writes what Avro's own buffered binary encoder writes, reused or not. */
class ByteArrayBinaryEncoderTest {

    /** One write, applied to either encoder. */
    interface Write {
        void to(BinaryEncoder e) throws IOException;
    }

    @Property(tries = 500)
    void shouldWriteTheBytesAvrosEncoderWrites(@ForAll("writes") List<Write> writes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder avro = EncoderFactory.get().binaryEncoder(out, null);
        for (Write w : writes) w.to(avro);
        avro.flush();

        ByteArrayBinaryEncoder ours = new ByteArrayBinaryEncoder(16);
        ours.writeString("left over from a previous value");
        ours.reset();
        for (Write w : writes) w.to(ours);
        assertThat(ours.toByteArray()).isEqualTo(out.toByteArray());
        assertThat(ours.size()).isEqualTo(out.size());
    }

    @Test
    void shouldGrowPastItsInitialCapacity() {
        ByteArrayBinaryEncoder e = new ByteArrayBinaryEncoder(16);
        String big = "x".repeat(100_000);
        e.writeString(big);
        e.writeLong(Long.MIN_VALUE);
        assertThat(e.size()).isEqualTo(3 + 100_000 + 10);
        assertThat(e.capacity()).isGreaterThanOrEqualTo(e.size());
    }

    @Provide
    Arbitrary<List<Write>> writes() {
        Arbitrary<String> text = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.strings().all().ofMaxLength(70)),
                Tuple.of(2, Arbitraries.strings().withChars("a?é€😀\uD800\uDC00\u0000\u007f\u0080").ofMaxLength(100)),
                Tuple.of(1, Arbitraries.strings().all().ofMinLength(60).ofMaxLength(5_000)));
        Arbitrary<Write> one = Arbitraries.oneOf(
                text.map(s -> (Write) e -> e.writeString(s)),
                text.map(s -> (Write) e -> e.writeString((CharSequence) new StringBuilder(s))),
                Arbitraries.integers().map(n -> (Write) e -> e.writeInt(n)),
                Arbitraries.longs().map(n -> (Write) e -> e.writeLong(n)),
                Arbitraries.integers().between(0, 1_000).map(n -> (Write) e -> e.writeIndex(n)),
                Arbitraries.integers().between(0, 1_000).map(n -> (Write) e -> e.writeEnum(n)),
                Arbitraries.of(true, false).map(b -> (Write) e -> e.writeBoolean(b)),
                Arbitraries.floats().map(f -> (Write) e -> e.writeFloat(f)),
                Arbitraries.doubles().map(d -> (Write) e -> e.writeDouble(d)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(3_000).map(b -> (Write) e -> e.writeFixed(b)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300).map(b -> (Write) e -> e.writeBytes(b)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300).map(b -> (Write) e -> e.writeBytes(ByteBuffer.wrap(b))),
                Arbitraries.longs().between(0, 1L << 40).map(n -> (Write) e -> {
                    e.writeArrayStart();
                    e.setItemCount(n);
                    e.startItem();
                    e.writeArrayEnd();
                }),
                Arbitraries.just((Write) e -> e.writeNull()));
        return one.list().ofMaxSize(40);
    }
}
