"""Session memory in the shared Redis: LangGraph's checkpointer interface, holding each conversation's latest
checkpoint (and its pending writes) in one hash `session:{conversation id}` that expires `ttl_s` after its last
use (every read and write refreshes it), so every server process answers a follow-up with the same memory.
While Redis is down the memory is this process's own (an InMemorySaver) until Redis is back (storage/redis_link.py).

    memory = RedisSessionMemory(link, ttl_s=8 * 3600)   # storage/session_memory.py picks the checkpointer
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.memory import InMemorySaver

from wenshu.storage.redis_link import RedisLink

PREFIX = "session:"
SEP = "\x1f"  # between the parts of a field name (a subgraph's namespace may hold ':')


class RedisSessionMemory(BaseCheckpointSaver):
    """The latest checkpoint of each conversation in Redis, with a TTL refreshed on every use."""

    get_next_version = InMemorySaver.get_next_version  # the same version strings as LangGraph's own savers

    def __init__(self, link: RedisLink, ttl_s: float):
        super().__init__()
        self.link = link
        self.ttl_ms = max(1, int(ttl_s * 1000))
        self.local = InMemorySaver(serde=self.serde)  # while Redis is down

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        conf = config["configurable"]
        thread, ns = str(conf["thread_id"]), conf.get("checkpoint_ns", "")

        def read(r) -> dict:
            pipe = r.pipeline(transaction=True)
            pipe.hgetall(PREFIX + thread)
            pipe.pexpire(PREFIX + thread, self.ttl_ms)
            return pipe.execute()[0]

        fields = self.link.run(read, lambda: None)
        if fields is None:
            return self.local.get_tuple(config)
        blob = fields.get(f"cp{SEP}{ns}".encode())
        if blob is None:
            return None
        saved = self._load(blob)
        cid = saved["checkpoint"]["id"]
        if get_checkpoint_id(config) not in (None, cid):
            return None  # an older checkpoint: session memory keeps only the latest
        head = f"w{SEP}{ns}{SEP}{cid}{SEP}".encode()
        writes = []
        for name, value in fields.items():
            if name.startswith(head):
                task_id, idx = name[len(head):].decode().rsplit(SEP, 1)
                channel, data, task_path = self._load(value)
                writes.append(((task_path, task_id, int(idx)), (task_id, channel, data)))
        parent = saved["parent"]
        return CheckpointTuple(
            config={"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": cid}},
            checkpoint=saved["checkpoint"], metadata=saved["metadata"],
            parent_config={"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": parent}}
            if parent else None,
            pending_writes=[w for _, w in sorted(writes, key=lambda kv: kv[0])],
        )

    def list(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
             before: RunnableConfig | None = None, limit: int | None = None) -> Iterator[CheckpointTuple]:
        """The conversation's latest checkpoint (the only one kept), if it matches; nothing without a thread."""
        if config is None or limit == 0:
            return
        found = self.get_tuple({"configurable": {k: v for k, v in config["configurable"].items()
                                                 if k != "checkpoint_id"}})
        if found is None or (filter and any(found.metadata.get(k) != v for k, v in filter.items())):
            return
        if before is None or found.checkpoint["id"] < (get_checkpoint_id(before) or ""):
            yield found

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions) -> RunnableConfig:
        conf = config["configurable"]
        thread, ns = str(conf["thread_id"]), conf.get("checkpoint_ns", "")
        blob = self._dump({"checkpoint": checkpoint, "parent": conf.get("checkpoint_id"),
                           "metadata": get_checkpoint_metadata(config, metadata)})

        def write(r) -> RunnableConfig:
            stale = [f for f in r.hkeys(PREFIX + thread) if f.startswith(f"w{SEP}{ns}{SEP}".encode())]
            pipe = r.pipeline(transaction=True)
            if stale:  # the writes of the checkpoint this one replaces
                pipe.hdel(PREFIX + thread, *stale)
            pipe.hset(PREFIX + thread, f"cp{SEP}{ns}", blob)
            pipe.pexpire(PREFIX + thread, self.ttl_ms)
            pipe.execute()
            return {"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"]}}

        return self.link.run(write, lambda: self.local.put(config, checkpoint, metadata, new_versions))

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        conf = config["configurable"]
        thread, ns, cid = str(conf["thread_id"]), conf.get("checkpoint_ns", ""), conf["checkpoint_id"]
        mapping = {f"w{SEP}{ns}{SEP}{cid}{SEP}{task_id}{SEP}{WRITES_IDX_MAP.get(channel, i)}":
                   self._dump([channel, value, task_path]) for i, (channel, value) in enumerate(writes)}

        def write(r) -> None:
            pipe = r.pipeline(transaction=True)
            pipe.hset(PREFIX + thread, mapping=mapping)
            pipe.pexpire(PREFIX + thread, self.ttl_ms)
            pipe.execute()

        if mapping:
            self.link.run(write, lambda: self.local.put_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self.local.delete_thread(thread_id)
        self.link.run(lambda r: r.delete(PREFIX + str(thread_id)), lambda: 0)

    def _dump(self, value: Any) -> bytes:
        kind, data = self.serde.dumps_typed(value)
        return kind.encode() + b"\x00" + data

    def _load(self, blob: bytes) -> Any:
        kind, _, data = blob.partition(b"\x00")
        return self.serde.loads_typed((kind.decode(), data))

