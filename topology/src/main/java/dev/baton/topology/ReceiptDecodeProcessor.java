package dev.baton.topology;

import dev.baton.deadletter.DeadLetters;
import dev.baton.deadletter.ErrorCode;
import dev.baton.ingest.ReceiptDecoder;
import dev.baton.processor.DependencyUnavailableException;
import dev.baton.serde.SchemaRegistryUnavailableException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * First node after the receipts source: reads each record with the {@link ReceiptDecoder}; accepted receipts go to
 * the receipt processor keyed by their session, refusals to the dead-letter writer with the original bytes. A schema
 * registry that cannot be reached fails the task (the record is retried, never dead-lettered).
 */
public final class ReceiptDecodeProcessor implements Processor<byte[], byte[], String, Object> {
    private final ReceiptDecoder decoder;
    private final String receiptChild;
    private final String deadLetterChild;
    private ProcessorContext<String, Object> context;

    public ReceiptDecodeProcessor(ReceiptDecoder decoder, String receiptChild, String deadLetterChild) {
        this.decoder = decoder;
        this.receiptChild = receiptChild;
        this.deadLetterChild = deadLetterChild;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        ReceiptDecoder.Result r;
        try {
            r = decoder.decode(record.key(), record.value());
        } catch (SchemaRegistryUnavailableException e) {
            throw new DependencyUnavailableException("schema registry unavailable while decoding "
                    + DeadLetters.sourceOf(context), e);
        }
        if (r.receipt() == null) {
            ErrorCode code = r.code();
            DeadLetters.forward(context, deadLetterChild, record.timestamp(), record.key(), record.value(), code,
                    r.message());
            return;
        }
        context.forward(new Record<String, Object>(r.receipt().session().toString(), r.receipt(), record.timestamp(),
                new RecordHeaders()), receiptChild);
    }
}
