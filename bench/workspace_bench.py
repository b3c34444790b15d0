"""How fast the annotator's workspace answers: opening a long document, and one span action.

Creates a project with an Arabic document of about 6,000 words holding 400 machine proposals
(names, places, handles, phone numbers), starts gunicorn on 127.0.0.1, logs an annotator in,
and times, one request at a time (the server's time plus loopback): opening the document's
page R times, then R span actions as the page sends them with htmx (accept, reject or
relabel, each saying what the page shows and answered with the patch the page applies: the
span's row, whatever else changed meanwhile, the stretch of text around them and the status
bar), then R checks of what changed while nothing did (204). Prints p50, p95 and max of
each, the CPU the server's workers spent on each kind of request (steadier than the times on
a busy machine), and what the page weighs as sent. Targets: p95 ≤ 50 ms to open, ≤ 30 ms per
action, ≤ 20 ms per check.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \\
        python bench/workspace_bench.py [--rounds 100] [--words 6000] [--spans 400]

Traffic goes to 127.0.0.1 only, in a bounded number of requests. The database named in
DATABASE_URL is dropped and created again first: point it at a database of its own.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_load_bench import free_port, percentile  # noqa: E402
from bench.import_bench import django_on_fresh_database  # noqa: E402

WORDS = "في مدينة كبيرة يعيش الناس ويعملون كل يوم مع أصدقائهم وجيرانهم بلا توقف".split()
NAMES = ["موشيه حايا", "سارة منصور", "كريم بن علي", "ليلى حداد", "عمر الفاسي"]
PLACES = ["بيروت", "القاهرة", "تونس", "عمّان", "الرباط"]


def arabic_document(words: int, spans: int, seed: int) -> tuple[str, list[tuple[int, int, str]]]:
    """About `words` words of Arabic with `spans` identifiers spread through them."""
    rng = random.Random(seed)
    every = max(1, words // spans)
    parts: list[str] = []
    found: list[tuple[int, int, str]] = []
    offset = 0
    for number in range(words):
        if number % every == 0 and len(found) < spans:
            kind = len(found) % 4
            surface, label = [
                (rng.choice(NAMES), "PER"),
                (rng.choice(PLACES), "LOC"),
                (f"@user_{len(found)}", "USERNAME"),
                (f"+٩٦١ ٧١ {len(found):06d}", "PHONE"),
            ][kind]
            found.append((offset, offset + len(surface), label))
        else:
            surface = rng.choice(WORDS)
        parts.append(surface)
        offset += len(surface) + 1
        if number % 40 == 39:
            parts.append("👋\r\n")
            offset += 4  # 👋, CR, LF, and the space the join puts after them
    return " ".join(parts), found


def weight_parts(page: str) -> str:
    """Where the page's bytes go: its text with the marks, its span rows, the rest."""
    text = re.search(r'<div class="doc-text"[^>]*>.*?</div>', page, re.DOTALL)
    rows = re.search(r"<tbody>(.*?)</tbody>", page, re.DOTALL)
    if text is None or rows is None:
        return ""
    total = len(page.encode())
    text_kb, rows_kb = len(text[0].encode()) / 1000, len(rows[1].encode()) / 1000
    rest_kb = total / 1000 - text_kb - rows_kb
    return f": text {text_kb:.0f} KB, rows {rows_kb:.0f} KB, rest {rest_kb:.0f} KB"


def server_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) of gunicorn's workers, the children of `pid`, so far;
    0 where /proc cannot tell (not Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    total = 0
    for child in children:
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # a worker gone meanwhile
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--words", type=int, default=6000)
    parser.add_argument("--spans", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    args = parser.parse_args()

    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    # Pages name their static files through the manifest, as in a deployment: collect them.
    static_root = tempfile.mkdtemp(prefix="cloak-static-")
    os.environ["CLOAK_STATIC_ROOT"] = static_root
    django_on_fresh_database()
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from annotator.models import Document, Span, SpanSource
    from annotator.services.projects import membership_set, project_create

    project = project_create(slug="workspace-bench", languages=["ar"])
    user = membership_set(
        project=project, username="amina", role="annotator", languages=["ar"],
        password="workspace-bench-password",
    ).user  # fmt: skip
    text, found = arabic_document(args.words, args.spans, seed=7)
    document = Document.objects.create(project=project, language="ar", external_id="long",
                                       text=text)  # fmt: skip
    Span.objects.bulk_create(
        Span(document=document, start=s, end=e, label=label, source=SpanSource.NER, score=0.9)
        for s, e, label in found
    )
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    # The backend that signs people in (the first one, axes', only counts failures).
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()

    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "annotator.wsgi",
         "--bind", f"127.0.0.1:{port}", "--workers", str(args.workers),
         "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, "DJANGO_DEBUG": "0"},
    )  # fmt: skip
    page_path = f"/projects/{project.slug}/documents/{document.pk}/"
    opens: list[float] = []
    actions: list[float] = []
    checks: list[float] = []
    errors: list[str] = []
    cpu: dict[str, float] = {}
    weight = 0
    parts = ""
    try:
        cookies = {"sessionid": session.session_key or ""}
        deadline = time.monotonic() + 60
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            try:
                conn.request("GET", "/healthz/")
                conn.getresponse().read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def request(method: str, path: str, body: str | None = None,
                    headers: dict[str, str] | None = None) -> tuple[int, str]:  # fmt: skip
            cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
            started = time.perf_counter()
            conn.request(method, path, body=body, headers={"Cookie": cookie, **(headers or {})})
            response = conn.getresponse()
            raw = response.read()
            data = raw.decode()
            elapsed = time.perf_counter() - started
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    cookies[name] = rest.split(";", 1)[0]
            bucket = opens if method == "GET" else checks if "/changes/" in path else actions
            bucket.append(elapsed)
            if bucket is opens:
                nonlocal weight
                weight = len(raw)
            return response.status, data

        status, page = request("GET", page_path)
        opens.clear()
        if status != 200:
            raise SystemExit(f"the page answered {status}")
        parts = weight_parts(page)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token is not None
        used = server_cpu_seconds(server.pid)
        for _ in range(args.rounds):
            status, page = request("GET", page_path)
            if status != 200:
                errors.append(f"GET {status}")
        cpu["open the page"] = server_cpu_seconds(server.pid) - used
        row = re.compile(r'data-span-id="(\d+)" data-version="(\d+)" data-order="(\d+) (\d+) \d+" '
                         r'(?:data-action-url="[^"]+" )?data-stamp="([^"]+)"')  # fmt: skip
        rows = row.findall(page)
        versions = {span_id: int(version) for span_id, version, *_ in rows}
        # A span's URL, as the page's script makes it (the workspace's span URL and the id).
        urls = {span_id: f"{page_path}spans/{span_id}/" for span_id in versions}
        # What the page shows, as its script sends it with each action and check.
        shown = {span_id: f"{span_id}:{stamp}:{a}:{b}" for span_id, _, a, b, stamp in rows}
        stamp_of = re.compile(r'data-document-stamp="([^"]*)"')
        seen = stamp_of.search(page)
        assert seen is not None
        document_stamp = seen.group(1)

        def known() -> str:
            rows_shown = quote(" ".join(shown.values()))
            return f"known={rows_shown}&known_document={quote(document_stamp)}"

        headers = {
            "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true",
            "X-CSRFToken": token.group(1), "Referer": f"http://127.0.0.1:{port}{page_path}",
        }  # fmt: skip
        rng = random.Random(3)
        used = server_cpu_seconds(server.pid)
        for number in range(args.rounds):
            span_id = rng.choice(sorted(versions))
            action = ("accept", "reject", "label")[number % 3]
            body = (
                f"csrfmiddlewaretoken={token.group(1)}&version={versions[span_id]}&action={action}"
                f"&{known()}"
            )
            if action == "label":
                body += "&label=ORG"
            status, fragment = request("POST", urls[span_id], body, headers)
            if status != 200 or "alert-error" in fragment or 'id="workspace"' in fragment:
                errors.append(f"POST {action}: {status}")
            # The page applies the patch: what it shows follows.
            for pk, version, a, b, stamp in row.findall(fragment):
                versions[pk] = int(version)
                shown[pk] = f"{pk}:{stamp}:{a}:{b}"
            seen = stamp_of.search(fragment)
            document_stamp = seen.group(1) if seen else document_stamp
        cpu["one span action"] = server_cpu_seconds(server.pid) - used
        changes_path = f"{page_path}changes/"
        used = server_cpu_seconds(server.pid)
        for _ in range(args.rounds):
            status, _ = request("POST", changes_path, known(), headers)
            if status != 204:
                errors.append(f"POST changes: {status}")
        cpu["a check, no change"] = server_cpu_seconds(server.pid) - used
        conn.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(static_root, ignore_errors=True)

    print(f"document            {len(text.split()):,} words, {len(found)} spans, Arabic, "
          f"gunicorn {args.workers} sync workers, {os.cpu_count()} cores")  # fmt: skip
    for name, values in (
        ("open the page", opens), ("one span action", actions), ("a check, no change", checks)
    ):  # fmt: skip
        p50, p95 = (1000 * percentile(values, f) for f in (0.5, 0.95))
        worst, mean = 1000 * max(values), 1000 * statistics.fmean(values)
        used = 1000 * cpu.get(name, 0.0) / max(1, len(values))
        print(f"{name:19} p50 {p50:5.1f} ms  p95 {p95:5.1f} ms  max {worst:5.0f} ms"
              f"  mean {mean:5.1f} ms  server CPU {used:5.1f} ms"
              f"  ({len(values)} requests)")  # fmt: skip
    print(f"page weight         {weight / 1000:.0f} KB ({weight:,} bytes, as sent: no compression)"
          f"{parts}")  # fmt: skip
    print(f"errors              {len(errors)}")
    for error in errors[:10]:
        print(f"  {error}")


if __name__ == "__main__":
    main()
