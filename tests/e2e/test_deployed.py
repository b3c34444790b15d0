"""What only shows on the deployed stack (tests/e2e/stack.py), outside any test transaction:
a worker killed in the middle of a run and reaped by its own restart, an open page that
learns what another process changed, and signing in against gunicorn's several processes.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
import requests

from tests.e2e.conftest import (
    PASSWORDS,
    PROJECT,
    Api,
    import_records,
    log_in,
    sign_in,
    wait_for,
)
from tests.e2e.stack import KEYS_SCHEMA, Stack
from tests.e2e.workspace import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Enough batches (two documents each) that the run is still going when the worker is killed.
RUN_DOCUMENTS = 200


def _a_run_under_way(
    stack: Stack, admin: Api, language: str, text: str
) -> tuple[dict[str, Any], str]:
    """A run over RUN_DOCUMENTS new documents of `language` (`text` formatted with each one's
    number), once some batches are written, not all: the run and its API path. Watched in
    the database, not through the API: on a loaded machine the API's first answer came only
    at 196 of 200 documents, and the test met the end of the run instead of its middle."""
    prefix = f"{language}-run"
    import_records(admin, [
        {"id": f"{prefix}-{n}", "lang": language, "text": text.format(n=n)}
        for n in range(RUN_DOCUMENTS)
    ])  # fmt: skip
    run = admin.post("runs/", {"language": language}, expect=202)
    path = f"runs/{run['id']}/"
    done_batches = "SELECT count(*) FROM annotator_runbatch WHERE run_id = %s AND status = 'done'"
    wait_for(lambda: stack.sql(done_batches, run["id"])[0][0], lambda done: done >= 2,
             300, "the run's first batches", every=0.05)  # fmt: skip
    return run, path


def _spans_written_twice(stack: Stack, language: str) -> list[tuple[Any, ...]]:
    return stack.sql(
        "SELECT count(*) FROM annotator_span s JOIN annotator_document d ON d.id = s.document_id "
        'WHERE d.external_id LIKE %s GROUP BY s.document_id, s.start, s."end", s.label '
        "HAVING count(*) > 1",
        f"{language}-run-%",
    )


def test_a_worker_killed_in_a_run_leaves_it_failed_and_resumable(
    stack: Stack, api: dict[str, Api]
) -> None:
    admin = api["admin"]
    text = "Post {n}: Moshe Chaya met Sarah Levi in Lyon; write to s{n}@example.org."
    run, path = _a_run_under_way(stack, admin, "en", text)
    # Killed (SIGKILL, the whole process group) once some batches are written, not all.
    stack.kill("worker")
    killed = admin.get(path)
    assert killed["status"] == "running" and killed["documents_done"] < RUN_DOCUMENTS, killed

    # The worker starts again under its node name and, before it takes a task, reaps the
    # batch its earlier start held: at once, not after CLOAK_JOB_STALE_AFTER (600 s here).
    started = time.monotonic()
    stack.restart_worker()
    failed = wait_for(lambda: admin.get(path), lambda row: row["status"] != "running",
                      30, "the restarted worker's reaper")  # fmt: skip
    assert failed["status"] == "failed" and "resume" in failed["error"], failed
    assert time.monotonic() - started < 60

    # It then takes the batches still queued in Redis: they do nothing, since their run is no
    # longer running.
    stack.wait_idle()
    after = admin.get(path)
    assert after["status"] == "failed"
    assert after["documents_done"] == failed["documents_done"], (failed, after)

    # Resumed, it ends: every document once, no span written twice.
    admin.post(f"runs/{run['id']}/resume/", {}, expect=202)
    done = wait_for(lambda: admin.get(path), lambda row: row["status"] in ("done", "failed"),
                    300, "the resumed run")  # fmt: skip
    assert done["status"] == "done", done
    assert done["documents_done"] == RUN_DOCUMENTS
    assert _spans_written_twice(stack, "en") == []


def test_an_open_page_learns_what_another_process_changed(
    stack: Stack, api: dict[str, Api], browser: Any
) -> None:
    annotator = api["annotator_fr"]
    ids = import_records(api["admin"], [
        {"id": "page-a", "lang": "fr", "text": "Hier, Ruth Nakamura a écrit à la mairie."},
        {"id": "page-b", "lang": "fr", "text": "Ruth Nakamura répond 👍🏽 : Ruth Nakamura."},
    ])  # fmt: skip
    page = log_in(browser, stack, "annotator_fr")
    ws = Workspace(page, annotator, ids["page-b"]).open()
    rows_before = page.locator("#workspace tr[data-span-id]").count()

    # In another process: a decision in document A, propagated by the worker into B.
    annotator.post(f"documents/{ids['page-a']}/spans/",
                   {"start": 6, "end": 19, "label": "PER"}, expect=201)  # fmt: skip
    stack.wait_idle()
    proposed = [s for s in ws.spans() if s["source"] == "known"]
    assert len(proposed) == 2, proposed

    # The page checks when it gets the focus back (and every few seconds): the rows appear,
    # without a reload, and the text around them is highlighted.
    page.evaluate("window.cloakNotReloaded = true")
    page.evaluate("window.dispatchEvent(new Event('focus'))")
    page.wait_for_function(
        "n => document.querySelectorAll('#workspace tr[data-span-id]').length === n",
        arg=rows_before + 2,
    )
    assert page.evaluate("window.cloakNotReloaded") is True
    for span in proposed:
        assert page.locator(f'#workspace .doc-text mark[data-spans~="{span["id"]}"]').count()
    assert ws.text() == "Ruth Nakamura répond 👍🏽 : Ruth Nakamura."
    page.context.close()


def test_decisions_made_together_go_out_in_one_pass_that_waits_for_nobody(
    stack: Stack, api: dict[str, Api]
) -> None:
    annotator = api["annotator_en"]
    names = ["Ottilie Brandvold", "Casimir Quennell", "Perpetua Ashdown"]
    records = [
        {"id": f"pass-{n}", "lang": "en", "text": f"{name} wrote to the council."}
        for n, name in enumerate(names)
    ]
    records += [
        {"id": "pass-all", "lang": "en", "text": f"Later {', '.join(names)} met."},
        {"id": "pass-held", "lang": "en", "text": f"{names[0]} and {names[1]} again."},
    ]
    ids = import_records(api["admin"], records)

    def known(name: str) -> list[dict[str, Any]]:
        spans = annotator.get(f"documents/{ids[name]}/spans/?limit=1000")["results"]
        return [span for span in spans if span["source"] == "known"]

    with stack.postgres.connect(stack.dbname) as person, person.transaction():
        # A person's write holds one document's row while the pass runs.
        person.execute(
            "SELECT id FROM annotator_document WHERE id = %s FOR UPDATE", [ids["pass-held"]]
        )
        # Three decisions new to the table, within one window (CLOAK_PROPAGATION_WINDOW).
        for n, name in enumerate(names):
            annotator.post(f"documents/{ids[f'pass-{n}']}/spans/",
                           {"start": 0, "end": len(name), "label": "PER"}, expect=201)  # fmt: skip
        # The pass proposes all three in the other document, without waiting for the held one.
        wait_for(lambda: known("pass-all"), lambda spans: len(spans) == 3, 60, "the pass")
        assert known("pass-held") == []
    # Released: a later pass proposes there too.
    stack.wait_idle()
    assert len(known("pass-held")) == 2
    passes = [line for line in stack.logs()["worker"].splitlines() if "propagated " in line]
    # One pass took all three choices and left the held document for the next.
    assert any("propagated 3 choices" in line and "1 documents left" in line for line in passes)
    for name in names:
        assert all(name not in line for line in passes)


def test_bad_bodies_get_a_json_detail_from_gunicorn(stack: Stack, api: dict[str, Api]) -> None:
    annotator = api["annotator_en"]
    text = "Thumbs 👍🏽 up from Moshe, 🇫🇷 and Cafe\u0301.\r\nBye."
    ids = import_records(api["admin"], [{"id": "bad-1", "lang": "en", "text": text}])
    spans = annotator.url(f"documents/{ids['bad-1']}/spans/")
    json_type = {"Content-Type": "application/json"}

    def refused(answer: requests.Response, status: int) -> str:
        assert answer.status_code == status, (answer.status_code, answer.text[:300])
        assert answer.headers["Content-Type"].startswith("application/json")
        return str(answer.json()["detail"])

    deep = ("[" * 100_000 + "]" * 100_000).encode()
    anonymous = requests.post(f"{stack.url}/api/auth/token/", data=deep, headers=json_type,
                              timeout=60)  # fmt: skip
    assert "deep" in refused(anonymous, 400).lower()
    refused(annotator.session.post(spans, data=deep, headers=json_type, timeout=60), 400)

    # Over the 10 MiB limit, with a length and chunked: the client receives the answer.
    huge = b'{"label": "' + b"x" * (11 * 1024 * 1024) + b'"}'
    refused(annotator.session.post(spans, data=huge, headers=json_type, timeout=120), 413)
    chunks = (huge[at : at + 65536] for at in range(0, len(huge), 65536))
    refused(annotator.session.post(spans, data=chunks, headers=json_type, timeout=120), 413)

    # Half a grapheme cluster: the thumb without its skin tone, the tone alone, half a flag,
    # the letter without its accent, CR without its LF.
    thumb = text.index("👍")
    flag = text.index("🇫🇷")
    accent = text.index("e\u0301")
    crlf = text.index("\r\n")
    for start, end in [(thumb, thumb + 1), (thumb + 1, thumb + 2), (flag, flag + 1),
                       (accent - 3, accent + 1), (crlf - 1, crlf + 1)]:  # fmt: skip
        answer = annotator.session.post(spans, json={"start": start, "end": end, "label": "PER"},
                                        timeout=30)  # fmt: skip
        refused(answer, 400)
    assert annotator.get(f"documents/{ids['bad-1']}/spans/")["count"] == 0

    # A PATCH that changes nothing keeps the version; the API answers JSON to a browser too.
    at = text.index("Moshe")
    span = annotator.post(f"documents/{ids['bad-1']}/spans/",
                          {"start": at, "end": at + 5, "label": "PER"}, expect=201)  # fmt: skip
    again = annotator.patch(f"documents/{ids['bad-1']}/spans/{span['id']}/",
                            {"version": span["version"], "label": "PER"})  # fmt: skip
    assert again["version"] == span["version"]
    html = annotator.session.get(spans, headers={"Accept": "text/html"}, timeout=30)
    assert html.status_code == 200 and html.headers["Content-Type"].startswith("application/json")


def test_a_token_logs_out_on_every_process(stack: Stack) -> None:
    annotator = sign_in(stack, "annotator_en")
    assert annotator.get("documents/?limit=1")["count"] >= 0
    out = annotator.session.post(f"{stack.url}/api/auth/logout/", timeout=30)
    assert out.status_code in (200, 204), out.text
    for _ in range(6):  # whichever gunicorn process answers
        refused = annotator.call("GET", "documents/?limit=1")
        assert refused.status_code == 401 and "detail" in refused.json()


def test_sign_in_is_throttled_and_locked_across_the_servers_processes(stack: Stack) -> None:
    # Asked for tokens by the module's fixture (five), the deep body and the test above (one
    # each): the token endpoint's limit of ten a minute is not reached before this test.
    # A page's answer carries the strict policy.
    home = requests.get(f"{stack.url}/accounts/login/", timeout=30)
    policy = home.headers.get("Content-Security-Policy", "")
    assert "script-src 'self'" in policy and "unsafe-eval" not in policy, policy

    # The lead's wrong passwords, sent to whichever gunicorn process takes them: the count is
    # shared, and the sixth try is refused, even with the right password.
    browser_like = requests.Session()
    for attempt in range(6):
        form = browser_like.get(f"{stack.url}/accounts/login/", timeout=30)
        assert form.status_code in (200, 429)
        answer = browser_like.post(
            f"{stack.url}/accounts/login/",
            data={
                "username": "lead",
                "password": PASSWORDS["lead"] if attempt == 5 else "not the password at all",
                "csrfmiddlewaretoken": browser_like.cookies["csrftoken"],
            },
            headers={"Referer": f"{stack.url}/accounts/login/"},
            allow_redirects=False,
            timeout=30,
        )
    assert answer.status_code == 429, answer.status_code
    assert "Retry-After" in answer.headers
    locked = requests.post(f"{stack.url}/api/auth/token/", timeout=30,
                           json={"username": "lead", "password": PASSWORDS["lead"]})  # fmt: skip
    assert locked.status_code == 429 and "detail" in locked.json()

    # The token endpoint: a few tries a minute from one address, then 429 with a JSON detail.
    statuses = []
    for _ in range(12):
        tried = requests.post(f"{stack.url}/api/auth/token/", timeout=30,
                              json={"username": "nobody", "password": "still not it"})  # fmt: skip
        statuses.append(tried.status_code)
    assert statuses[0] in (400, 401) and statuses[-1] == 429, statuses
    assert "detail" in tried.json() and "Retry-After" in tried.headers


def test_a_refused_key_edit_and_what_its_answer_shows_are_audited(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 32: a refused edit answered the entity's originals with no audit row. On the
    deployed stack (the keys in their own schema, through their own role), every answer
    that shows an original is a read by its person, and the refusal is audited as one."""
    admin, lead, annotator = api["admin"], api["lead"], api["annotator_en"]
    name = "Ottilie Brackenridge"
    ids = import_records(admin, [
        {"id": "audited-a", "lang": "en", "text": f"{name} called.", "spans": []},
    ])  # fmt: skip
    person = annotator.post(f"documents/{ids['audited-a']}/spans/",
                            {"start": 0, "end": len(name), "label": "PER"}, expect=201)  # fmt: skip
    entity = lead.get(f"entities/{person['entity_id']}/")
    asked = {"version": entity["version"] + 3, "decision": "keep", "keep_reason": "public"}
    stale = lead.call("PATCH", f"entities/{entity['id']}/", expect=409, json=asked).json()
    assert name in [alias["original"] for alias in stale["current"]["aliases"]]
    every = [alias["id"] for alias in entity["aliases"]]  # "leave at least one alias"
    refused = lead.call("POST", f"entities/{entity['id']}/split/", expect=400,
                        json={"aliases": every, "version": entity["version"]})  # fmt: skip
    assert name not in refused.text

    target = f"entity:{entity['id']}"
    events = [event for event in admin.get("audit/?actor=lead&limit=200")["results"]
              if event["target"] == target]  # fmt: skip
    reads = [event for event in events if event["action"] == "key_read"]
    refusals = sorted(
        event["detail"]["refused"] for event in events
        if event["action"] == "key_edit" and "refused" in event["detail"]
    )  # fmt: skip
    assert len(reads) == 2, events  # the GET, and the 409 that showed the entity again
    assert refusals == ["refused", "stale"], events
    assert not any(name in str(event["detail"]) for event in events)


def test_an_import_writes_its_words_and_a_typed_pseudonym_is_checked_against_them(
    stack: Stack, api: dict[str, Api]
) -> None:
    """The corpus's vocabulary on the deployed stack: the worker's import writes the words
    with the documents (as the web role, in the public schema), a pseudonym typed for a new
    surface is refused when a document holds it and taken when none does, whether or not
    its words occur apart, and the catch-up command takes in a document no import wrote
    (its ANALYZE, which the web role may not run, only warns)."""
    admin, english = api["admin"], api["annotator_en"]
    held = "Zebadiah Quorn wrote from Farthingale Road, call +33 6 12 34 56 78."
    other = "Ottoline Vexley and Benedikt Armistead called."
    ids = import_records(admin, [
        {"id": "words-held", "lang": "en", "text": held, "spans": []},
        {"id": "words-other", "lang": "en", "text": other, "spans": []},
    ])  # fmt: skip
    pending = (
        "SELECT count(*) FROM annotator_document "
        "WHERE external_id LIKE 'words-%%' AND NOT words_indexed"
    )
    assert stack.sql(pending)[0][0] == 0
    words = (
        "SELECT count(*) FROM annotator_corpusword w "
        "JOIN annotator_project p ON p.id = w.project_id WHERE p.slug = %s"
    )
    assert stack.sql(words, PROJECT)[0][0] > 10

    def typed(surface: str, pseudonym: str) -> requests.Response:
        at = other.index(surface)
        return english.call(
            "POST", f"documents/{ids['words-other']}/spans/",
            json={"start": at, "end": at + len(surface), "label": "PER", "replacement": pseudonym},
        )  # fmt: skip

    refused = typed("Ottoline Vexley", "zebadiah QUORN")  # as the other document writes it
    assert refused.status_code in (400, 409), refused.text
    # An annotator is not told why (it could be someone's name): only that it is unusable.
    assert "choose another" in refused.json()["detail"]
    taken = typed("Ottoline Vexley", "Quorn Zebadiah")  # both words occur, never together
    assert taken.status_code == 201, taken.text
    assert taken.json()["replacement"] == "Quorn Zebadiah"
    phone = typed("Benedikt Armistead", "+33 6 12 34 56 79")  # every group occurs, not the run
    assert phone.status_code == 201, phone.text

    # A document no import wrote (here: one marked so), taken in by the command.
    with stack.postgres.connect(stack.dbname) as conn:
        conn.execute(
            "UPDATE annotator_document SET words_indexed = false WHERE external_id = 'words-held'"
        )
    said = stack.manage("index_corpus", PROJECT)
    assert said.stdout.strip().endswith(": 1"), said.stdout
    assert stack.sql(pending)[0][0] == 0


def test_a_document_opened_has_its_pseudonyms_drawn_ahead_and_an_accept_takes_one(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Opening a document asks the worker to draw its proposals' pseudonyms ahead, into the
    keys' schema as the keys' role; accepting a proposal then takes the one drawn for it."""
    admin, english = api["admin"], api["annotator_en"]
    # Names no other test of the module decides (a decided one is never drawn ahead).
    text = "Zebulon Marchetti wrote to Isidora Penhallow."
    spans = [
        {"start": text.index(name), "end": text.index(name) + len(name), "label": "PER"}
        for name in ("Zebulon Marchetti", "Isidora Penhallow")
    ]
    ids = import_records(admin, [{"id": "ahead-1", "lang": "en", "text": text, "spans": spans}])
    ahead = (
        f"SELECT replacement FROM {KEYS_SCHEMA}.keys_drawnahead d "
        "JOIN annotator_project p ON p.id = d.project_id WHERE p.slug = %s"
    )
    # Other tests of the module opened documents of theirs: their draws are done by now.
    before = len(stack.sql(ahead, PROJECT))
    document = english.get(f"documents/{ids['ahead-1']}/")
    drawn = wait_for(lambda: stack.sql(ahead, PROJECT), lambda rows: len(rows) >= before + 2,
                     60, "the pseudonyms drawn ahead")  # fmt: skip
    proposal = next(s for s in document["spans"] if s["start"] == 0)
    accepted = english.patch(
        f"documents/{ids['ahead-1']}/spans/{proposal['id']}/",
        {"version": proposal["version"], "status": "accepted"},
    )
    left = {row[0] for row in stack.sql(ahead, PROJECT)}
    assert {row[0] for row in drawn} - left == {accepted["replacement"]}  # that one, taken
    # The web role reads none of it.
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        stack.sql_as_web(f"SELECT count(*) FROM {KEYS_SCHEMA}.keys_drawnahead")
