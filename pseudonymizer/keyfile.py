"""A key table on disk, encrypted under a passphrase, and the key store that holds one.

`KeyStore` is what a run works with: the table, the secret that makes its pseudonyms
deterministic, and where to save the table back (an encrypted file, or nowhere for a table
held in memory). `load` and `save` read and write the file itself.

The file is one JSON object: a header in the clear (format, version, the scrypt parameters
and the random salt) and the table's JSON as a Fernet token (AES-128-CBC + HMAC-SHA256) under
a key derived from the passphrase with scrypt. A wrong passphrase and a damaged token are
indistinguishable by design: both are "wrong passphrase or damaged key file". Writes go to a
temporary file in the same folder, created with mode 0600, then replace the old file in one
`os.replace`, so a crash leaves either the old table or the new one, never half of one.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from pseudonymizer.keytable import KeyTable

FORMAT = "cloak-keys"
VERSION = 1
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
# A file may name its own scrypt cost; refuse one that would take more than 256 MiB.
_MAX_SCRYPT_MEMORY = 256 * 1024 * 1024
WRONG = "wrong passphrase or damaged key file"
# Domain separation of the pseudonym secret derived from a passphrase. Changing it changes
# every pseudonym a key file gives to a surface it does not hold yet: never change it.
_SECRET_CONTEXT = b"cloak-cli-pseudonyms\0"


class KeyFileError(Exception):
    """A key file that cannot be read or written; the message says why, never what is in it."""


def _fernet(passphrase: str, salt: bytes, n: int, r: int, p: int) -> Fernet:
    key = Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(key))


def _check_passphrase(passphrase: str) -> None:
    if not passphrase:
        raise KeyFileError("the passphrase is empty")


def save(table: KeyTable, path: str | os.PathLike[str], passphrase: str) -> None:
    """Encrypt `table` under `passphrase` into `path`, atomically, readable by its owner only."""
    _check_passphrase(passphrase)
    salt = os.urandom(SALT_BYTES)
    payload = json.dumps(table.to_dict(), ensure_ascii=False).encode("utf-8")
    token = _fernet(passphrase, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P).encrypt(payload)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "kdf": {
            "name": "scrypt",
            "n": SCRYPT_N,
            "r": SCRYPT_R,
            "p": SCRYPT_P,
            "salt": base64.b64encode(salt).decode("ascii"),
        },
        "cipher": "fernet",
        "token": token.decode("ascii"),
    }
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    # mkstemp creates the file with mode 0600 and O_EXCL: no other user ever sees it.
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=folder
        )
    except OSError as error:
        raise KeyFileError(f"cannot write the key file: {error.strerror}") from error
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _header(document: Any) -> tuple[bytes, int, int, int, bytes]:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise KeyFileError("not a Cloak key file")
    version = document.get("version")
    if version != VERSION:
        raise KeyFileError(f"unsupported key file version {version!r} (this Cloak reads {VERSION})")
    kdf = document.get("kdf")
    token = document.get("token")
    if not isinstance(kdf, dict) or kdf.get("name") != "scrypt" or not isinstance(token, str):
        raise KeyFileError(WRONG)
    n, r, p = kdf.get("n"), kdf.get("r"), kdf.get("p")
    if type(n) is not int or type(r) is not int or type(p) is not int:
        raise KeyFileError(WRONG)
    if n < 2 or n & (n - 1) or not 1 <= r <= 64 or not 1 <= p <= 16:
        raise KeyFileError(WRONG)
    if 128 * n * r > _MAX_SCRYPT_MEMORY:
        raise KeyFileError(WRONG)
    try:
        salt = base64.b64decode(str(kdf.get("salt", "")), validate=True)
    except (binascii.Error, ValueError) as error:
        raise KeyFileError(WRONG) from error
    if not salt:
        raise KeyFileError(WRONG)
    return salt, n, r, p, token.encode("ascii", errors="replace")


def load(path: str | os.PathLike[str], passphrase: str) -> KeyTable:
    """The table `save` wrote to `path`; KeyFileError when it is missing, of another kind,
    of another version, damaged, or when the passphrase is wrong."""
    _check_passphrase(passphrase)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError as error:
        raise KeyFileError(f"no key file at {os.fspath(path)}") from error
    except OSError as error:
        raise KeyFileError(f"cannot read the key file: {error.strerror}") from error
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise KeyFileError("not a Cloak key file") from error
    salt, n, r, p, token = _header(document)
    try:
        payload = _fernet(passphrase, salt, n, r, p).decrypt(token)
        data = json.loads(payload)
        return KeyTable.from_dict(data)
    except (InvalidToken, UnicodeDecodeError, ValueError) as error:
        raise KeyFileError(WRONG) from error


def pseudonym_secret(passphrase: str) -> str:
    """The pseudonym secret derived from a key file's passphrase (64 hex digits): the same
    passphrase gives the same pseudonyms to new surfaces, run after run."""
    return hashlib.sha256(_SECRET_CONTEXT + passphrase.encode("utf-8")).hexdigest()


@dataclass
class KeyStore:
    """A run's key table and pseudonym secret, loaded from (and saved back to) an encrypted
    key file, or held in memory (`path` None: `save` does nothing)."""

    table: KeyTable
    secret: str
    path: Path | None = None
    passphrase: str | None = None

    @classmethod
    def in_memory(cls, secret: str | None = None) -> KeyStore:
        """An empty table, never saved; `secret` None draws a random one (pseudonyms then
        differ from run to run)."""
        return cls(KeyTable(), secret or secrets.token_hex(32))

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], passphrase: str, *, secret: str | None = None
    ) -> KeyStore:
        """The table of the key file at `path`, or an empty one when there is no file yet
        (`save` creates it). `secret` None derives it from the passphrase
        (`pseudonym_secret`). Raises `KeyFileError` for an empty passphrase, a wrong one, and
        a file that cannot be read or is not a key file."""
        _check_passphrase(passphrase)
        key_path = Path(path)
        secret = secret or pseudonym_secret(passphrase)
        if not key_path.exists():
            return cls(KeyTable(), secret, key_path, passphrase)
        return cls(load(key_path, passphrase), secret, key_path, passphrase)

    def save(self) -> None:
        """Write the table back to its key file (atomically); nothing for an in-memory one.
        Raises `KeyFileError` when the file cannot be written."""
        if self.path is None or self.passphrase is None:
            return
        save(self.table, self.path, self.passphrase)
