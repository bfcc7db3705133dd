"""The HTTP server: REST + Server-Sent Events + the static web UI (FastAPI, run by `wenshu serve`).

`create_app(settings)` builds the application; docs/api.md is the contract it keeps.
"""

from wenshu.server.app import create_app

__all__ = ["create_app"]
