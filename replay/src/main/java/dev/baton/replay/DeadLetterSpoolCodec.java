package dev.baton.replay;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** How a {@link Replay.ReportedDeadLetter} is written into, and read back from, the replay's reorder buffer (its spool). */
final class DeadLetterSpoolCodec {
    private DeadLetterSpoolCodec() {
    }

    static byte[] encode(Replay.ReportedDeadLetter dl) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(dl.code() == null ? "" : dl.code());
            out.writeUTF(dl.message() == null ? "" : dl.message());
            writeBytes(out, dl.key());
            writeBytes(out, dl.value());
            out.writeLong(dl.originalSize());
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Replay.ReportedDeadLetter decode(byte[] encoded) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
            return new Replay.ReportedDeadLetter(in.readUTF(), in.readUTF(), readBytes(in), readBytes(in), in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b == null ? -1 : b.length);
        if (b != null) {
            out.write(b);
        }
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
