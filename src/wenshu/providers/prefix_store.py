"""Saved prompt-prefix states on disk: one file per (model, prefix), verified before use, bounded in size.

A file holds the llama.cpp sequence state (the KV cache) after evaluating a prompt prefix, so a new
process loads it in milliseconds instead of re-reading ~1,800 tokens. Layout, under
`WENSHU_HOME/prefix/<model hash>/<prefix hash>.kv`:

    MAGIC | u32 header length | header JSON | payload

The header names the model hash, the prefix hash, a label (the datasource), the prefix tokens, the
payload's length and SHA-256. A file that is truncated, corrupt or written for another model or prefix
is deleted and reported as a miss, never loaded. Writers write a private temporary file and rename it
into place, so two processes saving the same prefix at once leave one valid file. Saving a prefix for
a label removes that label's older prefixes (its schema or knowledge changed); past `max_bytes`, the
least recently used files go.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import uuid
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"WENSHU-PREFIX\x01"
SUFFIX = ".kv"


def prefix_hash(tokens: list[int]) -> str:
    return hashlib.sha256(struct.pack(f"<{len(tokens)}i", *tokens)).hexdigest()[:32]


@dataclass
class SavedPrefix:
    tokens: list[int]
    payload: memoryview  # over the file's bytes, writable: handed to llama.cpp without another copy
    label: str


class PrefixStore:
    def __init__(self, root: Path, max_bytes: int):
        self.root = Path(root)
        self.max_bytes = max_bytes

    def path(self, model_hash: str, phash: str) -> Path:
        return self.root / model_hash[:32] / f"{phash}{SUFFIX}"

    def load(self, model_hash: str, phash: str) -> SavedPrefix | None:
        """The saved state, or None (a missing file; a bad one is deleted)."""
        path = self.path(model_hash, phash)
        try:
            with path.open("rb") as f:
                data = bytearray(os.fstat(f.fileno()).st_size)
                if f.readinto(data) != len(data):
                    data = bytearray()
        except OSError:
            return None
        saved = _decode(data, model_hash, phash)
        if saved is None:
            path.unlink(missing_ok=True)
            return None
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        return saved

    def save(self, model_hash: str, phash: str, tokens: list[int], payload: bytes | memoryview, label: str) -> Path:
        path = self.path(model_hash, phash)
        path.parent.mkdir(parents=True, exist_ok=True)
        header = json.dumps({"model": model_hash, "prefix": phash, "label": label, "tokens": tokens,
                             "size": memoryview(payload).nbytes, "sha256": hashlib.sha256(payload).hexdigest()}).encode()
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with tmp.open("wb") as f:
                f.write(MAGIC + struct.pack("<I", len(header)) + header)
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        self._drop_label(path.parent, label, keep=path)
        self.evict(keep=path)
        return path

    def files(self) -> list[Path]:
        return [p for p in self.root.glob(f"*/*{SUFFIX}") if p.is_file()] if self.root.is_dir() else []

    def size(self) -> int:
        return sum(_size(p) for p in self.files())

    def evict(self, keep: Path | None = None) -> int:
        """Delete the least recently used files until the store fits `max_bytes`; returns how many went."""
        files = sorted(self.files(), key=_mtime)
        total, gone = sum(_size(p) for p in files), 0
        for p in files:
            if total <= self.max_bytes:
                break
            if p == keep:
                continue
            total -= _size(p)
            p.unlink(missing_ok=True)
            gone += 1
        return gone

    def clear(self, label: str | None = None) -> int:
        """Delete every saved prefix (or only those of `label`); returns how many went."""
        gone = 0
        for p in self.files():
            if label is None or _label(p) == label:
                p.unlink(missing_ok=True)
                gone += 1
        return gone

    def _drop_label(self, folder: Path, label: str, keep: Path) -> None:
        for p in folder.glob(f"*{SUFFIX}"):
            if p != keep and _label(p) == label:
                p.unlink(missing_ok=True)


def _decode(data: bytearray, model_hash: str, phash: str) -> SavedPrefix | None:
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        return None
    (n,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    try:
        header = json.loads(data[start:start + n])
    except ValueError:
        return None
    payload = memoryview(data)[start + n:]
    if not isinstance(header, dict) or header.get("model") != model_hash or header.get("prefix") != phash:
        return None
    tokens = header.get("tokens")
    if not isinstance(tokens, list) or prefix_hash(tokens) != phash:
        return None
    if payload.nbytes != header.get("size") or hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        return None
    return SavedPrefix(tokens, payload, str(header.get("label") or ""))


def _label(path: Path) -> str | None:
    """The label from a file's header, reading only the header."""
    try:
        with path.open("rb") as f:
            head = f.read(len(MAGIC) + 4)
            if not head.startswith(MAGIC) or len(head) < len(MAGIC) + 4:
                return None
            (n,) = struct.unpack_from("<I", head, len(MAGIC))
            return json.loads(f.read(n)).get("label")
    except (OSError, ValueError, AttributeError):
        return None


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
