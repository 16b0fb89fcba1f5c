// What consumer.js does around the handler (the same as ../python/delivery.py): dedupe by snapshot_id, and the
// optional dead-letter file for records that cannot be handled.
'use strict';

const fs = require('fs');

// The snapshot ids handled most recently, at most `capacity` of them (0: dedupe off); the oldest is forgotten
// first. Baton writes each snapshot once (exactly-once), but a consumer sees a record again when it stopped after
// handling it and before committing it, or when its group was reset: such a redelivery is skipped while its id is
// remembered. This memory lasts as long as the process: a consumer whose hand-offs must not repeat across restarts
// keeps the ids in a durable store instead (e.g. a unique key on snapshot_id, written in the same transaction as
// the hand-off's effect). Pass such a store to run() as `dedupe`: any object with seen(id) and remember(id)
// (either may return a promise).
class RecentIds {
  constructor(capacity) {
    this.capacity = capacity;
    this.ids = new Map(); // insertion order: the first key is the least recently used
  }

  seen(id) {
    if (!this.ids.has(id)) return false;
    this.ids.delete(id);
    this.ids.set(id, true);
    return true;
  }

  remember(id) {
    if (this.capacity === 0) return;
    this.ids.delete(id);
    this.ids.set(id, true);
    while (this.ids.size > this.capacity) this.ids.delete(this.ids.keys().next().value);
  }

  get size() {
    return this.ids.size;
  }
}

// Appends each record that could not be handled as one JSON line (topic, partition, offset, timestamp, key and
// value in base64, error) and syncs it to disk before the kit commits past the record.
class DeadLetterFile {
  constructor(path) {
    this.path = path;
  }

  write({ topic, partition, offset, timestamp, key, value, error }) {
    const entry = {
      topic,
      partition,
      offset: Number(offset),
      timestamp: timestamp == null ? null : Number(timestamp),
      key_base64: key == null ? null : Buffer.from(key).toString('base64'),
      value_base64: value == null ? null : Buffer.from(value).toString('base64'),
      error,
    };
    const fd = fs.openSync(this.path, 'a');
    try {
      fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

module.exports = { RecentIds, DeadLetterFile };
