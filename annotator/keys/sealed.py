"""Files sealed with the keys' secret: what Cloak keeps on disk that holds originals.

A learned model's vocabulary and string store hold the words it learned from, the project's
originals among them. Such a file is written sealed: AES-256-GCM under a key derived from
CLOAK_KEYS_SECRET for its purpose (`annotator.keys.crypto`'s derivation), with what it is
(its `context`, such as the model's id) bound in as associated data, so that a file copied
over another's, or changed by a byte, does not open. Whoever reads the disk or a backup of
MEDIA_ROOT without the secret reads nothing; the worker that uses a file opens it in memory.

    sealed = seal(data, purpose="learned-model", context="learned:12")
    data = unseal(sealed, purpose="learned-model", context="learned:12")
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from annotator.keys import crypto

TAG = b"cloak-sealed-1\x00"
NONCE_BYTES = 12


class SealError(Exception):
    """Sealed bytes that do not open: another secret, another context, or damaged."""


def _key(purpose: str) -> bytes:
    # The table's own derivation (HMAC-SHA256 of the keys' secret), for another purpose: a
    # 256-bit key that seals files and nothing else.
    return crypto.derive_key(b"sealed-file:" + purpose.encode("utf-8"))


def seal(data: bytes, *, purpose: str, context: str) -> bytes:
    """`data` encrypted and authenticated for `purpose`, bound to `context`."""
    nonce = os.urandom(NONCE_BYTES)
    return TAG + nonce + AESGCM(_key(purpose)).encrypt(nonce, data, context.encode("utf-8"))


def unseal(sealed: bytes, *, purpose: str, context: str) -> bytes:
    """The data `seal` sealed for the same purpose and context; SealError otherwise."""
    if not sealed.startswith(TAG) or len(sealed) < len(TAG) + NONCE_BYTES:
        raise SealError("not a sealed file")
    nonce = sealed[len(TAG) : len(TAG) + NONCE_BYTES]
    body = sealed[len(TAG) + NONCE_BYTES :]
    try:
        return AESGCM(_key(purpose)).decrypt(nonce, body, context.encode("utf-8"))
    except InvalidTag:
        raise SealError(
            "the file does not open: sealed under another CLOAK_KEYS_SECRET, for another "
            "place, or damaged"
        ) from None


def write_sealed(path: Path, data: bytes, *, purpose: str, context: str) -> None:
    """Seal `data` into the file `path`, whole or not at all: written beside it, readable by
    its owner only, then renamed onto it. Missing folders are made, for the owner only."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(seal(data, purpose=purpose, context=context))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def read_sealed(path: Path, *, purpose: str, context: str) -> bytes:
    """The data sealed in the file `path` (OSError when it cannot be read, SealError when it
    does not open)."""
    return unseal(path.read_bytes(), purpose=purpose, context=context)
