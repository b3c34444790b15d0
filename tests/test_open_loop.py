"""The open loop's timetable and driver (bench/open_loop.py, issue 33): a Poisson process per
annotator that a seed repeats, and latencies counted from the time an action was scheduled,
not from the time a client got round to sending it (no coordinated omission)."""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter

import pytest

from bench.open_loop import (
    DEFAULT_MIX,
    SHARED_SURFACES,
    Action,
    Sample,
    drive,
    error_kinds,
    needs,
    parse_mix,
    rows_of,
    timetable,
)

MIX = parse_mix(DEFAULT_MIX)


def test_a_mix_is_shares_of_the_three_kinds() -> None:
    assert parse_mix("accept=2,add=1,relabel=1") == {"accept": 0.5, "add": 0.25, "relabel": 0.25}
    assert parse_mix("add=1") == {"accept": 0.0, "add": 1.0, "relabel": 0.0}
    for wrong in ("accept=1,undo=1", "accept", "accept=-1,add=1", "accept=0", "add=x"):
        with pytest.raises(ValueError):
            parse_mix(wrong)


def test_the_same_seed_draws_the_same_timetable_and_another_seed_another() -> None:
    first = timetable(20, 2.0, 60, 10, MIX, seed=5)
    assert first == timetable(20, 2.0, 60, 10, MIX, seed=5)
    assert first != timetable(20, 2.0, 60, 10, MIX, seed=6)
    # One annotator's timetable does not depend on how many others there are.
    assert timetable(3, 2.0, 60, 10, MIX, seed=5) == first[:3]


def test_each_annotator_acts_on_a_poisson_process_of_the_mean_asked() -> None:
    plan = timetable(200, 1.0, 100, 0, MIX, seed=1)
    gaps = [b.at - a.at for actions in plan for a, b in zip(actions, actions[1:], strict=False)]
    assert statistics.fmean(gaps) == pytest.approx(1.0, rel=0.03)
    # Exponential: the standard deviation equals the mean, and about 1/e of the gaps exceed it.
    assert statistics.pstdev(gaps) == pytest.approx(1.0, rel=0.05)
    assert sum(gap > 1.0 for gap in gaps) / len(gaps) == pytest.approx(0.368, abs=0.02)
    assert len(gaps) + len(plan) == pytest.approx(200 * 100, rel=0.03)
    for actions in plan:
        assert all(0 <= action.at < 100 for action in actions)
        assert [action.at for action in actions] == sorted(action.at for action in actions)


def test_the_mix_the_warm_up_and_what_each_action_acts_on() -> None:
    plan = timetable(100, 2.0, 60, 10, MIX, seed=3, shared=0.3)
    kinds = Counter(action.kind for actions in plan for action in actions)
    total = sum(kinds.values())
    assert kinds["accept"] / total == pytest.approx(0.5, abs=0.03)
    # A relabel with nothing of the annotator's own to relabel yet is an add.
    assert kinds["relabel"] / total < 0.15
    assert (kinds["add"] + kinds["relabel"]) / total == pytest.approx(0.5, abs=0.03)
    for actions in plan:
        assert all(action.measured == (action.at >= 10) for action in actions)
        new = relabelled = 0
        shared: list[int] = []
        for action in actions:
            if action.kind == "relabel":
                assert action.number == relabelled < new  # an own, new span, each once
                relabelled += 1
            elif action.kind == "add" and action.shared:
                shared.append(action.number)
            elif action.kind == "add":
                assert action.number == new
                new += 1
        assert len(shared) == len(set(shared)) and all(0 <= n < SHARED_SURFACES for n in shared)
    shared_adds = sum(needs(plan, "add", shared=True))
    assert shared_adds / (shared_adds + sum(needs(plan, "add"))) == pytest.approx(0.3, abs=0.03)


def test_latency_runs_from_the_scheduled_time_not_from_the_send() -> None:
    """The annotator's first action takes 0.3 s; the second, scheduled 0.05 s after the
    first, leaves 0.25 s late, and those 0.25 s count in its latency."""
    plan = [[Action(0, 0.0, "add", 0), Action(0, 0.05, "add", 1)]]

    def act(action: Action) -> str | None:
        time.sleep(0.3 if action.number == 0 else 0.01)
        return None

    samples = sorted(drive(plan, act, lead=0.05), key=lambda s: s.action.at)
    first, second = samples
    assert first.latency >= 0.3
    # Sent only once the first was answered: 0.25 s after its time, and counted.
    assert second.lag >= first.latency - 0.05 - 0.001
    assert second.latency >= second.lag + 0.01 >= 0.26
    assert second.latency < 1.0  # a loaded machine's margin, not a measurement


def test_annotators_do_not_wait_for_each_other_and_marks_come_on_time() -> None:
    plan = [[Action(n, 0.1, "accept", 0)] for n in range(20)]
    marked: list[float] = []
    started = time.perf_counter()

    def act(action: Action) -> str | None:
        time.sleep(0.3)
        return "accept: 200 stale" if action.annotator % 2 else None

    samples = drive(plan, act, lead=0.0, marks=[(0.2, lambda: marked.append(time.perf_counter()))])
    assert time.perf_counter() - started < 0.3 * 20 / 4  # all at once, not one after another
    assert len(samples) == 20 and all(0.3 <= s.latency < 1.5 for s in samples)
    assert len(marked) == 1 and 0.2 <= marked[0] - started < 1.0
    assert error_kinds([s.error for s in samples if s.error]) == [(10, "accept: 200 stale")]


def test_what_is_not_answered_in_time_is_an_error_and_the_rest_is_never_sent() -> None:
    release = threading.Event()
    sent: list[Action] = []
    plan = [[Action(0, 0.0, "add", 0, shared=True), Action(0, 0.01, "relabel", 0)]]

    def hang(action: Action) -> str | None:
        sent.append(action)
        release.wait(5)
        return None

    samples = drive(plan, hang, lead=0.0, grace=0.2)
    release.set()
    first, second = sorted(samples, key=lambda sample: sample.action.at)
    assert first.error is not None and "add: sent, not answered" in first.error
    assert second.error is not None and "relabel: not sent" in second.error
    assert first.latency >= 0.2
    assert rows_of(first) == ("add shared", "add", "all") and rows_of(second) == ("relabel", "all")
    time.sleep(0.05)
    assert sent == plan[0][:1]  # the relabel never left, even once the add was answered


def test_errors_of_one_kind_differ_only_in_their_numbers() -> None:
    errors = ["add: 409 span 12 overlaps 40", "add: 409 span 7 overlaps 3", "relabel: 400 no"]
    assert error_kinds(errors) == [(2, "add: 409 span 12 overlaps 40"), (1, "relabel: 400 no")]
    assert isinstance(Sample(Action(0, 0, "add", 0), 0.1, 0.0, None).latency, float)


def test_the_page_is_read_as_html_parser_reads_it() -> None:
    """bench/load_bench.py reads only the tags it needs, with expressions: what it finds is
    what HTMLParser finds in the whole page."""
    from bench.load_bench import PageRows, parsed

    page = """<html><body><form><input type="hidden" name="csrfmiddlewaretoken" value="tok&amp;1">
    <div id="workspace" hx-headers='{"X-CSRFToken": "tok&amp;1"}' data-document-stamp="7:3">
    <p>Un texte &lt;b&gt; avec <mark data-span-id="9">Ottoline</mark> dedans</p>
    <table><tr class="row" data-span-id="9" data-version="2" data-stamp="2:x"
        data-action-url="/p/x/documents/1/spans/9/" data-order="10 18 9"><td>PER</td></tr>
    <TR DATA-ORDER='30 36 12' data-span-id=12 data-version="1" data-stamp="1:"></TR>
    <tr data-span-id="13" data-version="4" hidden data-stamp="4:Jean Dupont" data-order="40 45 13">
    </table></div></form></body></html>"""
    whole = PageRows()
    whole.feed(page)
    quick = parsed(page)
    assert (quick.rows, quick.csrf, quick.document_stamp) == (
        whole.rows, whole.csrf, whole.document_stamp,
    )  # fmt: skip
    assert set(quick.rows) == {"9", "12", "13"} and quick.csrf == "tok&1"
    assert quick.rows["13"]["data-stamp"] == "4:Jean Dupont" and quick.document_stamp == "7:3"
