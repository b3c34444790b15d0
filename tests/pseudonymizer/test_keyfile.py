"""The encrypted key file: round trip, wrong passphrase, damage, atomic 0600 writes."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import pytest

from pseudonymizer import keyfile
from pseudonymizer.keyfile import KeyFileError, load, save
from pseudonymizer.keytable import Alias, KeyTable

PASSPHRASE = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests derive keys at a low cost; one test checks the real default."""
    monkeypatch.setattr(keyfile, "SCRYPT_N", 2**10)


def _table() -> KeyTable:
    return KeyTable.from_aliases(
        [
            Alias("Moshe Chaya", "en", "Raj Avrom", 1),
            Alias("موشيه حايا", "ar", "راج أفروم", 1),
            Alias("Barack Obama", "en", "", 2, decision="keep"),
        ]
    )


def test_a_saved_table_loads_back_with_the_passphrase(tmp_path: Path) -> None:
    path = tmp_path / "keys.json.enc"
    save(_table(), path, PASSPHRASE)
    assert load(path, PASSPHRASE).aliases == _table().aliases


def test_the_file_holds_no_original_in_the_clear_and_is_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "keys.json.enc"
    save(_table(), path, PASSPHRASE)
    content = path.read_text(encoding="utf-8")
    assert "Moshe" not in content and "Raj" not in content and "موشيه" not in content
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    header = json.loads(content)
    assert (header["format"], header["version"], header["kdf"]["name"]) == (
        "cloak-keys",
        1,
        "scrypt",
    )
    assert len(base64.b64decode(header["kdf"]["salt"])) == 16


def test_the_default_cost_is_scrypt_n_2_15_r_8_p_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyfile, "SCRYPT_N", 2**15)
    path = tmp_path / "keys.json.enc"
    save(KeyTable(), path, PASSPHRASE)
    kdf = json.loads(path.read_text(encoding="utf-8"))["kdf"]
    assert (kdf["n"], kdf["r"], kdf["p"]) == (2**15, 8, 1)
    assert load(path, PASSPHRASE).aliases == []


def test_each_save_uses_a_new_salt(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    save(_table(), first, PASSPHRASE)
    save(_table(), second, PASSPHRASE)
    salt = [json.loads(path.read_text())["kdf"]["salt"] for path in (first, second)]
    assert salt[0] != salt[1]


def test_a_wrong_passphrase_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "keys.json.enc"
    save(_table(), path, PASSPHRASE)
    with pytest.raises(KeyFileError, match="wrong passphrase or damaged key file"):
        load(path, "wrong horse")


def test_a_damaged_token_reads_as_a_wrong_passphrase(tmp_path: Path) -> None:
    path = tmp_path / "keys.json.enc"
    save(_table(), path, PASSPHRASE)
    document = json.loads(path.read_text())
    token = document["token"]
    document["token"] = token[:40] + ("A" if token[40] != "A" else "B") + token[41:]
    path.write_text(json.dumps(document))
    with pytest.raises(KeyFileError, match="wrong passphrase or damaged key file"):
        load(path, PASSPHRASE)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not a Cloak key file"),
        ('{"format": "other"}', "not a Cloak key file"),
        ('{"format": "cloak-keys", "version": 9}', "unsupported key file version 9"),
        (
            '{"format": "cloak-keys", "version": 1, "kdf": {"name": "scrypt"}, "token": "x"}',
            "wrong passphrase or damaged key file",
        ),
        (
            '{"format": "cloak-keys", "version": 1, "token": "x", "kdf": {"name": "scrypt",'
            ' "n": 1073741824, "r": 8, "p": 1, "salt": "AAAA"}}',
            "wrong passphrase or damaged key file",
        ),
    ],
)
def test_other_files_are_refused_with_a_clear_error(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "keys.json.enc"
    path.write_text(content)
    with pytest.raises(KeyFileError, match=message):
        load(path, PASSPHRASE)


def test_a_missing_file_or_an_empty_passphrase_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="no key file"):
        load(tmp_path / "missing", PASSPHRASE)
    with pytest.raises(KeyFileError, match="passphrase is empty"):
        save(KeyTable(), tmp_path / "keys", "")
    with pytest.raises(KeyFileError, match="cannot write"):
        save(KeyTable(), tmp_path / "no-such-folder" / "keys", PASSPHRASE)


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keys.json.enc"
    save(_table(), path, PASSPHRASE)
    before = path.read_bytes()

    def broken_replace(source: str, target: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        save(KeyTable(), path, PASSPHRASE)
    assert path.read_bytes() == before
    assert sorted(tmp_path.iterdir()) == [path]


def test_saving_replaces_an_existing_file_and_tightens_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "keys.json.enc"
    path.write_text("old")
    path.chmod(0o644)
    save(_table(), path, PASSPHRASE)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Three names, and the four words of the two pseudonymized ones.
    assert len(load(path, PASSPHRASE).aliases) == 7
