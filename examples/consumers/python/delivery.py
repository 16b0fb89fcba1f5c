"""What consumer.py does around the handler (the same as ../node/delivery.js): dedupe by snapshot_id, and the
optional dead-letter file for records that cannot be handled."""
import base64
import collections
import json
import os


class RecentIds:
    """The snapshot ids handled most recently, at most `capacity` of them (0: dedupe off); the oldest is forgotten
    first. Baton writes each snapshot once (exactly-once), but a consumer sees a record again when it stopped after
    handling it and before committing it, or when its group was reset: such a redelivery is skipped while its id is
    remembered. This memory lasts as long as the process: a consumer whose hand-offs must not repeat across restarts
    keeps the ids in a durable store instead (e.g. a unique key on snapshot_id, written in the same transaction as
    the hand-off's effect). Pass such a store to consumer.run() as `dedupe`: any object with seen(id) and
    remember(id)."""

    def __init__(self, capacity):
        self._capacity = capacity
        self._ids = collections.OrderedDict()

    def seen(self, snapshot_id):
        if snapshot_id in self._ids:
            self._ids.move_to_end(snapshot_id)
            return True
        return False

    def remember(self, snapshot_id):
        if self._capacity == 0:
            return
        self._ids[snapshot_id] = None
        self._ids.move_to_end(snapshot_id)
        while len(self._ids) > self._capacity:
            self._ids.popitem(last=False)

    def __len__(self):
        return len(self._ids)


class DeadLetterFile:
    """Appends each record that could not be handled as one JSON line (topic, partition, offset, timestamp, key and
    value in base64, error) and syncs it to disk before the kit commits past the record."""

    def __init__(self, path):
        self._path = path

    def write(self, topic, partition, offset, timestamp, key, value, error):
        entry = {"topic": topic, "partition": partition, "offset": offset, "timestamp": timestamp,
                 "key_base64": None if key is None else base64.b64encode(key).decode("ascii"),
                 "value_base64": None if value is None else base64.b64encode(value).decode("ascii"),
                 "error": error}
        with open(self._path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
