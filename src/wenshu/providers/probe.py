"""The child side of `wenshu.providers.runtime.probe`: load the model, decode a few tokens, print JSON.

Run as `python -m wenshu.providers.probe MODEL [--variant auto|base|NAME]`. It prints one JSON line:
`{"ok": true, "variant", "kind", "seconds", "text"}`, or `{"ok": false, "code", "error"}`. A runtime
that crashes kills only this process; the parent turns the signal into a clear error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from wenshu.errors import RuntimeUnsupportedCPU
from wenshu.providers.runtime import select_library

PROMPT = b"SELECT 1 +"
N_DECODE = 4


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--variant", default="auto")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        choice = select_library(args.variant)
    except RuntimeUnsupportedCPU as exc:
        print(json.dumps({"ok": False, "code": exc.code, "missing": exc.missing, "error": exc.en}))
        return 2
    try:
        from llama_cpp import Llama

        llm = Llama(model_path=args.model, n_ctx=256, n_batch=64, verbose=False)
        tokens = llm.tokenize(PROMPT)
        llm.eval(tokens)  # a real decode: the batch path where CPU kernels run
        out = []
        for _ in range(N_DECODE):
            token = llm.sample(temp=0.0)
            out.append(token)
            llm.eval([token])  # and the one-token path
        text = llm.detokenize(out).decode("utf-8", errors="replace")
        llm.close()
    except Exception as exc:  # a library that fails without crashing
        print(json.dumps({"ok": False, "code": "runtime_failed", "error": f"{type(exc).__name__}: {exc}"}))
        return 1
    print(json.dumps({"ok": True, "variant": choice.variant, "kind": choice.kind,
                      "seconds": round(time.perf_counter() - t0, 2), "text": text}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
