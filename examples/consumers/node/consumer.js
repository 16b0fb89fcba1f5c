#!/usr/bin/env node
// Reads baton.context-snapshots with kafkajs (read_committed: only snapshots of committed Baton transactions) and
// hands each snapshot to a handler; the kit's handler prints one JSON line per snapshot (see prompts.js), in the
// receiver dialect DIALECT (dialects.js, docs/receivers.md).
// Settings: settings.js and ../README.md (environment variables, or a CONFIG_FILE).
//
// Delivery (../README.md, "Commits, failures and duplicates"):
// - a record's offset is committed only after its handler returned (at least once: a crash before the commit
//   delivers the record again);
// - a record that cannot be decoded or handled stops the kit with a one-line error and exit status 1, its offset
//   not committed, so a restart reads it again; with DEAD_LETTER_FILE set, it is written there instead and the kit
//   goes on;
// - a snapshot_id handled recently is skipped (and committed): see delivery.js, RecentIds;
// - with RECEIPTS_TOPIC set, a hand-off receipt is sent for each snapshot handled (receiptSender below,
//   receipts.js): the acknowledgement once the handler returned, and the outcome too when the handler returns one.
//
// Values are Avro in the Confluent wire format (Confluent's AvroDeserializer) or, on topics of
// baton.format=json, JSON (FORMAT=auto tells them apart by the first byte).
'use strict';

const { Kafka, Partitioners, logLevel } = require('kafkajs');
const { SchemaRegistryClient, AvroDeserializer, SerdeType } = require('@confluentinc/schemaregistry');
const { readSnapshotJson } = require('./prompts');
const { forTarget } = require('./dialects');
const settings = require('./settings');
const { RecentIds, DeadLetterFile } = require('./delivery');
const receipts = require('./receipts');

// The kit's handler: one JSON line on standard output. Replace it with the delivery to the receiving agent; throw
// (or reject) to refuse a snapshot (retry transient failures inside the handler: a throw stops the kit or
// dead-letters the record). A handler that waits for the receiving agent's work may return (or resolve to)
// { outcome: 'RESOLVED'|'FAILED'|'HANDED_BACK'|'ABANDONED', tokens_spent: N }: with RECEIPTS_TOPIC set, that outcome
// is reported to Baton too.
function printLine(line) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const log = (text) => process.stderr.write(`baton consumer: ${text}\n`);

function decoderFor(s) {
  const deserializer = new AvroDeserializer(new SchemaRegistryClient(settings.registryConfig(s)), SerdeType.VALUE, {});
  return async (topic, value) => {
    if (value == null) throw new Error('the record has no value');
    if (s.FORMAT === 'avro' || (s.FORMAT === 'auto' && value[0] === 0)) return deserializer.deserialize(topic, value);
    return readSnapshotJson(value.toString('utf8'));
  };
}

// Sends a handled snapshot's hand-off receipts to RECEIPTS_TOPIC in the JSON form, keyed by its session, and waits
// for the broker's acknowledgement (before the kit commits the snapshot's offset: a receipt is never lost, and one
// sent twice after a redelivery Baton ignores and counts as a duplicate). Java's partitioner (murmur2, kafkajs's
// DefaultPartitioner), so that a session's receipts reach the partition of its events.
async function receiptSender(kafka, s) {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true });
  await producer.connect();
  const budget = s.RECEIVER_BUDGET_TOKENS ? Number(s.RECEIVER_BUDGET_TOKENS) : null;
  return {
    async send(snapshot, startedAt, result) {
      const started = receipts.acknowledge(snapshot, s.MODEL, budget, startedAt);
      const sent = [started];
      if (result && result.outcome != null) sent.push(receipts.reportOutcome(started, result.outcome, result.tokens_spent ?? 0));
      await producer.send({ topic: s.RECEIPTS_TOPIC, acks: -1,
        messages: sent.map((r) => ({ key: receipts.key(snapshot), value: receipts.toJson(r) })) });
    },
    disconnect: () => producer.disconnect(),
  };
}

// Consumes until MAX_SNAPSHOTS were handled, IDLE_EXIT_MS passed without one, SIGTERM/SIGINT, or a record could not
// be handled (without DEAD_LETTER_FILE); then exits with 0, or 1 for a record it stopped at.
async function run(s, handle = printLine, dedupe = new RecentIds(Number(s.DEDUPE_CAPACITY))) {
  const decode = decoderFor(s);
  const deadLetters = s.DEAD_LETTER_FILE ? new DeadLetterFile(s.DEAD_LETTER_FILE) : null;
  const max = Number(s.MAX_SNAPSHOTS);
  const idleExitMs = Number(s.IDLE_EXIT_MS);
  const kafka = new Kafka({ ...settings.kafkaConfig(s), logLevel: logLevel.WARN });
  const consumer = kafka.consumer({ groupId: s.GROUP_ID, readUncommitted: false });
  const sender = s.RECEIPTS_TOPIC ? await receiptSender(kafka, s) : null;
  await consumer.connect();
  await consumer.subscribe({ topic: s.TOPIC, fromBeginning: true });

  let handled = 0;
  let lastHandled = Date.now();
  let halted = false; // set before stopping: no record is handled or committed after it
  let stopping = false;
  const stop = async (code) => {
    halted = true;
    if (stopping) return;
    stopping = true;
    await consumer.disconnect();
    if (sender) await sender.disconnect();
    process.exit(code);
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  if (idleExitMs > 0) {
    setInterval(() => {
      if (Date.now() - lastHandled > idleExitMs) stop(0);
    }, 200);
  }
  await consumer.run({
    // the kit commits each record's offset itself, after handling it
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      if (halted) return;
      const where = `${topic}[${partition}]@${message.offset}`;
      try {
        const snapshot = await decode(topic, message.value);
        const id = snapshot.snapshot_id;
        if (await dedupe.seen(id)) {
          log(`skipped ${id} at ${where}: already handled (a redelivery)`);
        } else {
          const startedAt = new Date();
          const result = await handle(forTarget(snapshot, s.DIALECT, { model: s.MODEL }));
          if (sender) await sender.send(snapshot, startedAt, result);
          await dedupe.remember(id);
          handled += 1;
          lastHandled = Date.now();
        }
      } catch (e) {
        const error = `${e && e.name ? e.name : 'Error'}: ${e && e.message ? e.message : e}`;
        if (!deadLetters) {
          log(`stopped at ${where}: ${error}. Its offset is not committed: a restart reads it again `
            + '(set DEAD_LETTER_FILE to set such records aside and go on).');
          halted = true;
          // not awaited: disconnect() waits for this handler to return
          setImmediate(() => stop(1));
          return;
        }
        deadLetters.write({ topic, partition, offset: message.offset, timestamp: message.timestamp, key: message.key,
          value: message.value, error });
        log(`dead-lettered ${where} to ${s.DEAD_LETTER_FILE}: ${error}`);
      }
      try {
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      } catch (e) {
        // e.g. the partition moved to another member: it reads the record again (and may hand it off again)
        log(`could not commit ${where}: ${e.message}`);
      }
      if (max > 0 && handled >= max) {
        halted = true;
        setImmediate(() => stop(0));
      }
    },
  });
}

async function main() {
  let s;
  try {
    s = settings.load();
  } catch (e) {
    if (!(e instanceof settings.SettingsError)) throw e;
    log(e.message);
    process.exit(2);
  }
  await run(s);
}

if (require.main === module) {
  main().catch((e) => {
    log(`stopped: ${e && e.message ? e.message : e}`);
    process.exit(1);
  });
}

module.exports = { run, printLine };
