"""No network for a command: a new network namespace where the kernel lets us make one.

`unshare -rn` (util-linux) starts the command as the mapped root of a new user namespace with a network
namespace of its own, which has only a loopback interface that is down: every connection fails at
once, raw sockets included, not only clients that honour proxy variables. It needs no privilege where
unprivileged user namespaces are enabled (the default on Debian 11+, Ubuntu, Fedora) and works for root.
Where it is not available (no `unshare`, namespaces disabled, a container that forbids them) the
prefix is empty and the caller falls back to proxies that lead nowhere; `isolation()` says which.

Files the command writes belong to the calling user outside (the namespace maps only that user).
"""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache

UNSHARE = ("unshare", "--map-root-user", "--net", "--")


@lru_cache(maxsize=1)
def no_network_prefix() -> tuple[str, ...]:
    """The argv prefix that runs a command without network, or () where this machine cannot."""
    program = shutil.which("unshare", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if program is None:
        return ()
    prefix = (program, *UNSHARE[1:])
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return prefix if probe.returncode == 0 else ()


def isolation() -> str:
    """How a verify run is cut off from the network here: "namespace" or "proxies"."""
    return "namespace" if no_network_prefix() else "proxies"
