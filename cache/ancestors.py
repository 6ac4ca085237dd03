"""Who could swap a path: its parent folders up to ``/``, checked as ssh checks ``authorized_keys``.

A shared read-only cache and its operator's public key are owned by the operator, not by
the reader, so their own owner cannot be required to be the reader. What makes them safe is
that nobody else can replace them: every folder above them (along the path as given and along
its real path) must belong to root, to the reader, or to the owner of the path itself (the
operator), and must not be writable by group or others unless its sticky bit is set (``/tmp``:
there, others cannot rename or delete what they do not own).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import CachePermissionError


def _folders(path: Path) -> list[Path]:
    """The folders above ``path`` (as given, made absolute) and above its real path, each once."""
    absolute = Path(os.path.abspath(path))
    real = Path(os.path.realpath(absolute))
    seen: dict[Path, None] = {}
    for chain in (absolute, real):
        for folder in chain.parents:
            seen.setdefault(folder, None)
    if real != absolute:  # a symlink's target folder (the real one is checked by the caller)
        seen.setdefault(real.parent, None)
    return list(seen)


def check_ancestors(path: Path, what: str) -> None:
    """Refuse ``path`` (``what`` names it) if a folder above it lets someone else swap it.

    CachePermissionError names the folder and why; FileNotFoundError if ``path`` is absent."""
    owner = os.stat(path).st_uid
    me = os.getuid() if hasattr(os, "getuid") else owner
    trusted = {0, me, owner}
    for folder in _folders(path):
        info = folder.stat()
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid not in trusted:
            raise CachePermissionError(
                f"pymc-aot refuses {what} {path}: the folder {folder} above it belongs to uid {info.st_uid} "
                f"(neither root, you, nor the owner of {path}), who could replace it; move it to a folder "
                "only you, root or its owner control"
            )
        if mode & (stat.S_IWGRP | stat.S_IWOTH) and not mode & stat.S_ISVTX:
            raise CachePermissionError(
                f"pymc-aot refuses {what} {path}: the folder {folder} above it is group- or world-writable "
                f"without the sticky bit (mode {mode:o}), so anyone could swap it for their own "
                f"(`chmod go-w {folder}`, or `chmod +t {folder}`)"
            )
