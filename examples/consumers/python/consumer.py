#!/usr/bin/python3
"""Reads baton.context-snapshots (read_committed) and prints one JSON line per snapshot: a
chat-completions request for LOCAL targets, the CLI prompt for CLAUDE_CLI targets (see prompts.py).

Debian packages only: python3-confluent-kafka (the Kafka client) and python3-avro (the decoder).
Confluent's Python Avro deserializer needs fastavro, which Debian does not package, so the Confluent
wire format is read here: magic byte 0, the schema id (4 bytes, big-endian), the Avro binary body;
the writer's schema comes from the registry's Confluent API (GET /schemas/ids/{id}), cached.

Settings from the environment: BOOTSTRAP_SERVERS (localhost:9092), SCHEMA_REGISTRY_URL
(http://localhost:8081), TOPIC (baton.context-snapshots), GROUP_ID (baton-consumer-example),
MODEL (local-model), MAX_SNAPSHOTS (stop after that many), IDLE_EXIT_MS (stop after that long
without a snapshot).
"""
import io
import json
import os
import struct
import sys
import time
import urllib.request

import avro.io
import avro.schema
from confluent_kafka import Consumer

from prompts import for_target

_schemas = {}


def writer_schema(registry_url, schema_id):
    if schema_id not in _schemas:
        with urllib.request.urlopen(f"{registry_url.rstrip('/')}/schemas/ids/{schema_id}", timeout=30) as response:
            _schemas[schema_id] = avro.schema.parse(json.load(response)["schema"])
    return _schemas[schema_id]


def decode(registry_url, value):
    if len(value) < 5 or value[0] != 0:
        raise ValueError("not the Confluent wire format (magic byte 0 + 4-byte schema id)")
    (schema_id,) = struct.unpack(">I", value[1:5])
    reader = avro.io.DatumReader(writer_schema(registry_url, schema_id))
    return reader.read(avro.io.BinaryDecoder(io.BytesIO(value[5:])))


def main():
    env = os.environ.get
    registry_url = env("SCHEMA_REGISTRY_URL", "http://localhost:8081")
    model = env("MODEL", "local-model")
    max_snapshots = int(env("MAX_SNAPSHOTS", "0"))
    idle_exit = int(env("IDLE_EXIT_MS", "0")) / 1000.0
    consumer = Consumer({
        "bootstrap.servers": env("BOOTSTRAP_SERVERS", "localhost:9092"),
        "group.id": env("GROUP_ID", "baton-consumer-example"),
        "auto.offset.reset": "earliest",
        "isolation.level": "read_committed",
        "enable.auto.commit": True,
    })
    consumer.subscribe([env("TOPIC", "baton.context-snapshots")])
    seen, last = 0, time.monotonic()
    try:
        while not (max_snapshots and seen >= max_snapshots):
            if idle_exit and time.monotonic() - last > idle_exit:
                break
            message = consumer.poll(0.2)
            if message is None:
                continue
            if message.error():
                print(f"baton consumer: {message.error()}", file=sys.stderr)
                continue
            snapshot = decode(registry_url, message.value())
            sys.stdout.write(json.dumps(for_target(snapshot, model), ensure_ascii=False, separators=(",", ":")) + "\n")
            sys.stdout.flush()
            seen, last = seen + 1, time.monotonic()
    finally:
        consumer.close()


if __name__ == "__main__":
    main()
