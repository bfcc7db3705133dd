"""Knowledge-base progress shared by the processes of a team deployment: one Redis hash
(`wenshu:kb-progress`, document id -> JSON [stage, done, total]) that the worker ingesting or summarising a
document writes and every API process reads, with the interface of the in-process kb.progress.Progress.

A document in the hash is waiting for, or in, a background ingest or summary (`queued` once it is admitted):
an upload of the same content meanwhile is answered as a duplicate instead of being queued twice. Reads while
Redis is down answer "nothing in progress"; writes while it is down are dropped (progress is only shown).
"""

from __future__ import annotations

import json
import logging

import redis

from wenshu.kb.progress import counted, stage_of

log = logging.getLogger("wenshu.queue")
KEY = "wenshu:kb-progress"


class SharedProgress:
    def __init__(self, client: redis.Redis):
        self.client = client

    def set(self, doc_id: str, stage: str, done: int, total: int) -> None:
        try:
            self.client.hset(KEY, doc_id, json.dumps([stage, done, total]))
        except redis.RedisError as exc:
            log.warning("the progress of document %s was not stored: %s", doc_id, exc)

    def clear(self, doc_id: str | None) -> None:
        try:
            if doc_id:
                self.client.hdel(KEY, doc_id)
        except redis.RedisError as exc:
            log.warning("the progress of document %s was not cleared: %s", doc_id, exc)

    def tracker(self, doc_id: str):
        return lambda label, done, total: self.set(doc_id, stage_of(label), done, total)

    def _now(self, doc_id: str | None) -> tuple[str, int, int] | None:
        try:
            value = self.client.hget(KEY, doc_id) if doc_id else None
        except redis.RedisError:
            return None
        return tuple(json.loads(value)) if value is not None else None

    def stage(self, doc_id: str) -> str:
        return (self._now(doc_id) or ("",))[0]

    def of(self, doc_id: str | None, status: str) -> dict:
        return counted(self._now(doc_id), status)
