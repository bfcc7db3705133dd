"""The host, not the model, picks the skills of a turn: at most one or two, by how well a skill's
name and description match the request (shared words, Chinese segmented, plus meaning when an
embedder is given), above a floor, so a small model is shown only what fits."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wenshu.knowledge.tokenize import tokens
FLOOR = 0.35  # below this score a skill is not offered
STRONG = 0.45  # at or above it the request is the skill's task even when it also reads as a data question
DENSE_WEIGHT = 0.6


def _overlap(request: set[str], skill) -> float:
    words = set(tokens(f"{skill.name.replace('-', ' ')} {skill.description}"))
    return len(request & words) / max(1, min(len(request), 6)) if request else 0.0


def select(request: str, skills: Sequence, *, k: int = 2, embedder=None, floor: float = FLOOR) -> list:
    """The best `k` of `skills` (anything with a name and a description: skills, tools) above `floor`."""
    return [s for _, s in scored(request, skills, k=k, embedder=embedder, floor=floor)]


def scored(request: str, skills: Sequence, *, k: int = 2, embedder=None, floor: float = FLOOR) -> list[tuple]:
    """(score, item) of the best `k` above `floor`, best first."""
    usable = [s for s in skills if getattr(s, "ok", True)]
    if not usable or not request.strip():
        return []
    words = set(tokens(request))
    scores = [_overlap(words, s) for s in usable]
    if embedder is not None:
        vecs = np.asarray(embedder.embed([request, *(f"{s.name}: {s.description}" for s in usable)]), dtype=float)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-9
        dense = vecs[1:] @ vecs[0]
        scores = [(1 - DENSE_WEIGHT) * min(1.0, o) + DENSE_WEIGHT * float(d) for o, d in zip(scores, dense)]
    ranked = sorted(zip(scores, range(len(usable))), key=lambda x: -x[0])
    return [(score, usable[i]) for score, i in ranked[:k] if score >= floor]
