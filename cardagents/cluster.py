"""Where Ray runs (the ``[dist]`` extra): joining a cluster or starting a local instance, with
one-line errors for an address that cannot be joined. Only this module and the ``remote``
modules (``cardagents.training.remote``: self-play in Ray actors;
``cardagents.evaluation.remote``: evaluation chunks as Ray tasks) import Ray.

``address=None`` starts a local instance with at least as many CPUs as workers; ``"auto"`` or
``"host:port"`` joins a cluster started with ``ray start`` (every node needs this project
installed in the same Python environment). A ``host:port`` is first tried with one TCP
connection of at most ``PROBE_SECONDS`` (10 s), because ``ray.init`` waits minutes for an
address where nothing listens: an unreachable address fails at once with ``Unreachable``, one
line naming it.
"""

from __future__ import annotations

import logging
import os
import socket

import ray

PROBE_SECONDS = 10.0  # how long connect waits for a TCP answer at a "host:port" address


class Unreachable(ConnectionError):
    """A Ray address that cannot be joined; the message is one line naming it."""


def address_problem(address: str, timeout: float = PROBE_SECONDS) -> str | None:
    """Why nothing can be joined at ``address`` (``"host:port"`` or ``"ray://host:port"``),
    found with one TCP connection of at most ``timeout`` seconds; ``None`` if something
    listens there, or for ``"auto"`` (Ray looks for the cluster itself and says if none runs)."""
    if address in ("auto", "local"):
        return None
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    host = host.strip("[]")  # an IPv6 address, [::1]:6379
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return "it is neither 'auto' nor 'host:port'"
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return None
    except socket.timeout:
        return f"no answer within {timeout:g} s"
    except OSError as exc:
        return f"nothing answers there ({exc.strerror or exc})"


def connect(address: str | None = None, workers: int = 1) -> None:
    """Join the Ray cluster at ``address`` or start a local instance (CPUs for ``workers``
    actors or tasks at least); nothing if Ray is already running in this process.
    ``Unreachable`` (one line) for an address that cannot be joined."""
    if ray.is_initialized():
        return
    if address:
        problem = address_problem(address)
        if problem:
            raise Unreachable(f"cannot join the Ray cluster at {address!r}: {problem}")
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=True)
        except (ConnectionError, RuntimeError, ValueError) as exc:  # e.g. "auto" and none runs
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise Unreachable(f"cannot join the Ray cluster at {address!r}: {first}") from None
    else:
        # address="local": always a new instance, never a cluster some other process left
        # running (with which num_cpus would be an error)
        ray.init(address="local", num_cpus=max(os.cpu_count() or 1, workers),
                 include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
