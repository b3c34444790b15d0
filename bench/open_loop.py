"""The open loop of bench/load_bench.py (issue 33): a team's pace, not a queue of clients.

A closed loop (a client sends, waits for the answer, sends again) slows down with the server
it measures: when an answer is late, the requests that should have gone meanwhile are never
sent, and their wait is never counted ("coordinated omission"). A team does not wait for the
server: each of its annotators acts when they are ready. Here each annotator acts on a Poisson
process of their own: gaps drawn from an exponential distribution of mean `every` seconds,
from a random generator seeded by the run's seed and the annotator's number, so that a run
repeats, and one annotator's timetable does not change with the number of the others.

`timetable` draws the actions (accept a proposal, add a span, relabel one's own span, in the
proportions of a mix) for the warm-up and then the measured `seconds`. `drive` runs it: one
thread per annotator sleeps until each action's scheduled time and sends it; each action's
latency runs from its *scheduled* time to its answer, so an annotator whose previous action
is still unanswered (or a client thread that woke late) adds that wait to the next action's
latency instead of hiding it. How late each action left (`lag`) is kept too: the client's own
share of the wait.

This module knows no tool: the caller says what an action does (`drive`'s `act`) and the
report prints what it measured (`report`).
"""

from __future__ import annotations

import math
import os
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

KINDS = ("accept", "add", "relabel")
DEFAULT_MIX = "accept=0.5,add=0.35,relabel=0.15"
# Surfaces every annotator may add in a document of their own (each at most once: a second
# add of it in the same document would overlap the first), so that the correspondence table
# and propagation work across annotators.
SHARED_SURFACES = 10


def parse_mix(text: str) -> dict[str, float]:
    """`accept=0.5,add=0.35,relabel=0.15` → each kind's share (summing to 1; a kind left out
    has none)."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in KINDS:
            raise ValueError(f"{part.strip()!r}: a mix is kind=weight, the kinds {KINDS}")
        try:
            weight = float(value)
        except ValueError:
            raise ValueError(f"{part.strip()!r}: the weight is not a number") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"{part.strip()!r}: a weight is a number ≥ 0")
        weights[name] = weight
    total = sum(weights.values())
    if total <= 0:
        raise ValueError(f"{text!r}: no kind has a weight")
    return {kind: weights.get(kind, 0.0) / total for kind in KINDS}


@dataclass(frozen=True)
class Action:
    """One annotator's action, `at` seconds after the loop starts.

    `number` says on what: the annotator's n-th accept takes their n-th proposal; a new
    surface's add their n-th place; a shared add the shared surface `number`; a relabel their
    n-th new surface's span (a shared surface is never relabelled: one surface has one choice,
    and another annotator decided it too, so the table would refuse it)."""

    annotator: int
    at: float
    kind: str
    number: int
    shared: bool = False
    measured: bool = True

    @property
    def row(self) -> str:
        if self.kind == "add":
            return "add shared" if self.shared else "add new"
        return self.kind


def timetable(
    annotators: int,
    every: float,
    seconds: float,
    warmup: float,
    mix: dict[str, float],
    seed: int,
    shared: float = 0.3,
    surfaces: int = SHARED_SURFACES,
) -> list[list[Action]]:
    """Each annotator's actions in time order, from 0 to warmup + seconds (those before the
    warm-up's end are not measured). A relabel drawn before the annotator has a new span of
    their own left to relabel is an add instead, and so is a shared add once the annotator
    added every shared surface; each action draws the same three numbers whatever it
    becomes, so a conversion never shifts the draws that follow."""
    if every <= 0 or annotators < 0 or seconds < 0 or warmup < 0:
        raise ValueError("every > 0, and annotators, seconds and warm-up ≥ 0")
    cumulative, total = [], 0.0
    for kind in KINDS:
        total += mix.get(kind, 0.0)
        cumulative.append((total, kind))
    plan: list[list[Action]] = []
    for annotator in range(annotators):
        rng = random.Random(f"open-loop/{seed}/{annotator}")
        order = rng.sample(range(surfaces), surfaces)
        actions: list[Action] = []
        counts = {"accept": 0, "new": 0, "shared": 0, "relabel": 0}
        at = rng.expovariate(1 / every)
        while at < warmup + seconds:
            draw, share = rng.random() * total, rng.random()
            kind = next((name for edge, name in cumulative if draw < edge), cumulative[-1][1])
            if kind == "relabel" and counts["relabel"] >= counts["new"]:
                kind = "add"
            measured = at >= warmup
            if kind == "accept":
                actions.append(Action(annotator, at, kind, counts["accept"], False, measured))
                counts["accept"] += 1
            elif kind == "relabel":
                actions.append(Action(annotator, at, kind, counts["relabel"], False, measured))
                counts["relabel"] += 1
            elif share < shared and counts["shared"] < surfaces:
                number = order[counts["shared"]]
                actions.append(Action(annotator, at, "add", number, True, measured))
                counts["shared"] += 1
            else:
                actions.append(Action(annotator, at, "add", counts["new"], False, measured))
                counts["new"] += 1
            at += rng.expovariate(1 / every)
        plan.append(actions)
    return plan


def needs(plan: list[list[Action]], kind: str, shared: bool = False) -> list[int]:
    """How many actions of a kind each annotator's timetable holds (its places, proposals)."""
    return [
        sum(1 for action in actions if action.kind == kind and action.shared == shared)
        for actions in plan
    ]


@dataclass(frozen=True)
class Sample:
    """What one action measured: from its scheduled time to its answer (`latency`) and to
    when it left (`lag`), in seconds, and what went wrong (None if nothing)."""

    action: Action
    latency: float
    lag: float
    error: str | None


def drive(
    plan: list[list[Action]],
    act: Callable[[Action], str | None],
    *,
    lead: float = 1.0,
    marks: Sequence[tuple[float, Callable[[], None]]] = (),
    grace: float = 180.0,
    clock: Callable[[], float] = time.perf_counter,
) -> list[Sample]:
    """Run the timetable: one thread per annotator, each action sent at its scheduled time
    (`lead` seconds from now, plus its `at`) or as soon as the annotator's previous one is
    answered, whichever is later; `act` does it and says what went wrong. `marks` are called
    from this thread at their times (a snapshot of the servers' CPU at the warm-up's end,
    say). Whatever is still unanswered `grace` seconds after the last scheduled action is an
    error, its latency counted up to then (a lower bound), and what was not sent yet is never
    sent: a server that fell that far behind has said what there is to say."""
    start = clock() + lead
    samples: list[Sample] = []
    in_flight: dict[int, Action] = {}
    lock = threading.Lock()
    stopped = threading.Event()

    def annotate(actions: list[Action]) -> None:
        for action in actions:
            scheduled = start + action.at
            wait = scheduled - clock()
            if (wait > 0 and stopped.wait(wait)) or stopped.is_set():
                return
            sent = clock()
            with lock:
                in_flight[action.annotator] = action
            try:
                error = act(action)
            except Exception as failure:  # a bench reports every failure, whatever it is
                error = f"{action.kind}: {type(failure).__name__}: {failure}"
            answered = clock()
            with lock:
                if stopped.is_set():
                    return  # counted as unanswered already
                del in_flight[action.annotator]
                samples.append(Sample(action, answered - scheduled, sent - scheduled, error))

    threads = [
        threading.Thread(target=annotate, args=(actions,), daemon=True, name=f"annotator-{n}")
        for n, actions in enumerate(plan)
    ]
    for thread in threads:
        thread.start()
    for at, mark in sorted(marks, key=lambda pair: pair[0]):
        wait = start + at - clock()
        if wait > 0:
            time.sleep(wait)
        mark()
    last = max((actions[-1].at for actions in plan if actions), default=0.0)
    deadline = start + last + grace
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - clock()))
    with lock:
        stopped.set()
        done = {(s.action.annotator, s.action.at) for s in samples}
        ended = clock()
        for actions in plan:
            for action in actions:
                if (action.annotator, action.at) in done:
                    continue
                waiting = in_flight.get(action.annotator) == action
                why = (
                    "sent, not answered" if waiting else "not sent: an earlier one was not answered"
                )
                samples.append(Sample(
                    action, ended - (start + action.at), float("nan"),
                    f"{action.kind}: {why} {grace:.0f} s after the last action was due",
                ))  # fmt: skip
        return list(samples)


# -- what it measured ----------------------------------------------------------------------


class Timed(Protocol):
    """What the report reads of a row (bench.load_bench.Result)."""

    latencies: list[float]
    errors: list[str]
    seconds: float

    def ms(self, fraction: float) -> float: ...

    @property
    def ops(self) -> int: ...

    @property
    def rate(self) -> float: ...


ROWS = (
    ("accept", "accept a proposal (page, htmx)"),
    ("add", "add a span (API)"),
    ("add new", "  of which a new surface"),
    ("add shared", "  of which a shared surface"),
    ("relabel", "relabel (API)"),
    ("all", "every action"),
)


def rows_of(sample: Sample) -> tuple[str, ...]:
    """The report's rows a measured sample counts in."""
    row = sample.action.row
    return (row, "add", "all") if row.startswith("add ") else (row, "all")


def error_kind(message: str) -> str:
    """Errors of one kind differ only in their numbers (ids, versions, offsets)."""
    return re.sub(r"\d+", "#", message)[:90]


def error_kinds(errors: list[str]) -> list[tuple[int, str]]:
    """Each kind of error once, most frequent first: how many, and the first message."""
    first: dict[str, str] = {}
    counts: dict[str, int] = {}
    for error in errors:
        kind = error_kind(error)
        first.setdefault(kind, error)
        counts[kind] = counts.get(kind, 0) + 1
    return [(counts[kind], first[kind]) for kind in sorted(counts, key=lambda k: -counts[k])]


@dataclass
class OpenRun:
    """One tool's open loop: its rows (by ROWS' keys), how late the client sent, the CPU of
    the servers and of the client over the measured window, and how long the worker took to
    finish afterwards."""

    tool: str
    rows: dict[str, Timed]
    lags: list[float] = field(default_factory=list)
    # CPU seconds over the measured window: "web", "worker", "postgres", "client", "machine".
    cpu: dict[str, float] = field(default_factory=dict)
    # CPU ms per answered action, of the whole loop: "web", "worker", "postgres".
    each: dict[str, float] = field(default_factory=dict)
    drained: str = ""
    seconds: float = 0.0
    # How long after the window's end the last measured action was answered (0: within it).
    overrun: float = 0.0


def _ms(value: float) -> str:
    """Eight columns: tenths of a millisecond while they fit, then whole ones, then seconds."""
    if value < 10_000:
        return f"{value:8.1f}"
    return f"{value:8.0f}" if value < 1_000_000 else f"{value / 1000:7.0f}s"


def _cells(row: Timed | None) -> str:
    if row is None or not row.latencies:
        return f"{'—':>6}{'':44}"
    peak = 1000 * max(row.latencies)
    cells = "".join(_ms(value) for value in (row.ms(0.5), row.ms(0.95), row.ms(0.99), peak))
    return f"{row.ops:6d}{cells}{len(row.errors):5d}{row.rate:7.1f}"


def report(
    runs: list[OpenRun],
    *,
    annotators: int,
    every: float,
    seconds: float,
    warmup: float,
    mix: dict[str, float],
    shared: float,
    seed: int,
    accept_names: dict[str, str],
    out: Callable[[str], None] = print,
) -> None:
    """The open loop's table, one block of columns per tool, then each tool's client lag,
    CPU, worker backlog and errors by kind, then issue 33's targets for the first tool."""
    shares = ", ".join(f"{kind} {mix[kind]:.2f}" for kind in KINDS)
    out(
        f"\nOpen loop: {annotators} annotators, each acting every {every:g} s on average "
        f"(Poisson, seed {seed}), {seconds:g} s measured after {warmup:g} s of warm-up; mix "
        f"{shares} ({shared:.0%} of the adds on {SHARED_SURFACES} shared surfaces); "
        f"{annotators / every:.1f} actions/s scheduled"
    )
    out(
        "ms: from each action's scheduled time to its answer (an annotator's action waits for "
        "their previous one, and that wait counts); /s: actions answered without error per "
        "second, from the measured window's start to its end or to the last answer if later"
    )
    head = f"{'n':>6}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}{'err':>5}{'/s':>7}"
    out("")
    out(f"{'':32}" + "".join(f"{run.tool:^50}  " for run in runs))
    out(f"{'':32}" + "".join(f"{head}  " for _ in runs))
    for key, label in ROWS:
        out(f"{label:32}" + "".join(f"{_cells(run.rows.get(key))}  " for run in runs))
    for run in runs:
        if run.tool in accept_names:
            out(f"  ({run.tool}: accept is {accept_names[run.tool]})")
    for run in runs:
        out(f"\n{run.tool}:")
        lags = sorted(lag for lag in run.lags if not math.isnan(lag))
        if lags:
            p95 = 1000 * lags[min(len(lags) - 1, int(0.95 * len(lags)))]
            out(
                f"  sent late (after the scheduled time, behind the annotator's previous "
                f"action or the client): p95 {p95:.0f} ms, max {1000 * lags[-1]:.0f} ms"
            )
        if run.seconds and run.cpu:
            names = {"web": "web", "worker": "worker", "postgres": "PostgreSQL (all its databases)",
                     "client": "this client", "machine": f"the machine ({os.cpu_count()} cores, "
                     "neighbours included)"}  # fmt: skip
            used = ", ".join(
                f"{names.get(key, key)} {seconds / run.seconds:.2f}"
                for key, seconds in run.cpu.items()
            )
            out(f"  cores busy over the measured window: {used}")
        if run.each:
            names = {"postgres": "PostgreSQL"}
            costs = ", ".join(f"{names.get(key, key)} {ms:.0f}" for key, ms in run.each.items())
            out(f"  CPU ms per action answered (the whole loop, warm-up and the worker's work "
                f"after it included): {costs}")  # fmt: skip
        if run.overrun > 0.5:
            out(f"  the last measured action was answered {run.overrun:.0f} s after the window's "
                "end: the server fell behind the team")  # fmt: skip
        if run.drained:
            out(f"  the worker finished what the loop started {run.drained} after its end")
        everything = run.rows.get("all")
        for count, message in error_kinds(everything.errors if everything else []):
            out(f"  {count:5d} × {message[:220]}")
    targets(runs[0], annotators=annotators, every=every, out=out)


def targets(
    run: OpenRun, *, annotators: int, every: float, out: Callable[[str], None] = print
) -> None:
    """Issue 33's targets, for reference: this is a measurement, not a test."""

    def mark(ok: bool) -> str:
        return "met" if ok else "NOT met"

    load = f" (this run: {annotators} every {every:g} s)" if (annotators, every) != (50, 2) else ""
    out(f"\nIssue 33's targets, open loop, 50 annotators acting every 2 s on average{load}:")
    for key, name in (("accept", "accept"), ("add", "add")):
        row = run.rows.get(key)
        if row is None or not row.latencies:
            out(f"  {name} p95 ≤ 100 ms: none measured")
            continue
        p95 = row.ms(0.95)
        out(f"  {name} p95 ≤ 100 ms: {p95:.1f} ms, {mark(p95 <= 100)}")
    everything = run.rows.get("all")
    errors = len(everything.errors) if everything else 0
    out(f"  0 errors: {errors}, {mark(errors == 0)}")
