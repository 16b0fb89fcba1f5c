#!/usr/bin/env node
// Reads baton.context-snapshots with kafkajs (read_committed: only snapshots of committed Baton
// transactions) and Confluent's Avro deserializer, and prints one JSON line per snapshot (see
// prompts.js). Settings from the environment:
//   BOOTSTRAP_SERVERS (localhost:9092), SCHEMA_REGISTRY_URL (http://localhost:8081),
//   TOPIC (baton.context-snapshots), GROUP_ID (baton-consumer-example), MODEL (local-model),
//   MAX_SNAPSHOTS (stop after that many; default: run until Ctrl-C), IDLE_EXIT_MS (stop after that long
//   without a snapshot; default: never).
'use strict';

const { Kafka, logLevel } = require('kafkajs');
const { SchemaRegistryClient, AvroDeserializer, SerdeType } = require('@confluentinc/schemaregistry');
const { forTarget } = require('./prompts');

const env = (name, fallback) => process.env[name] || fallback;

async function main() {
  const topic = env('TOPIC', 'baton.context-snapshots');
  const model = env('MODEL', 'local-model');
  const max = Number(env('MAX_SNAPSHOTS', '0'));
  const idleExitMs = Number(env('IDLE_EXIT_MS', '0'));
  const registry = new SchemaRegistryClient({ baseURLs: [env('SCHEMA_REGISTRY_URL', 'http://localhost:8081')] });
  const deserializer = new AvroDeserializer(registry, SerdeType.VALUE, {});
  const kafka = new Kafka({
    clientId: 'baton-consumer-example',
    brokers: env('BOOTSTRAP_SERVERS', 'localhost:9092').split(','),
    logLevel: logLevel.WARN,
  });
  const consumer = kafka.consumer({ groupId: env('GROUP_ID', 'baton-consumer-example'), readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });

  let seen = 0;
  let lastSeen = Date.now();
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    await consumer.disconnect();
    process.exit(code);
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  if (idleExitMs > 0) {
    setInterval(() => {
      if (Date.now() - lastSeen > idleExitMs) stop(0);
    }, 200);
  }
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (stopping) return;
      const snapshot = await deserializer.deserialize(topic, message.value);
      process.stdout.write(JSON.stringify(forTarget(snapshot, model)) + '\n');
      seen += 1;
      lastSeen = Date.now();
      // not awaited: disconnect() waits for this handler to return
      if (max > 0 && seen >= max) setImmediate(() => stop(0));
    },
  });
}

main().catch((e) => {
  console.error(`baton consumer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
