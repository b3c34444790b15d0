"""No identifier reaches a release unless a person decided on it, on the deployed stack with a
real worker (tests/e2e/stack.py):

- a decision propagated by the worker leaves another machine's wider proposals whole: the full
  name "Ottoline Postlethwaite" and an e-mail address holding "ottoline";
- an annotator who accepts what is proposed releases no original;
- a document nobody annotated, marked done, never publishes a name: the release's own
  detection refuses it and names it;
- a decided name written another way in a finished document (tatweel, zero-width characters,
  alef maqsura, ta marbuta, fullwidth or mathematical letters, Arabic presentation forms)
  refuses the release, which names that document.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from tests.e2e.conftest import Api, import_records, wait_for
from tests.e2e.stack import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DECIDED = "Ottoline Featherstonehaugh"
TEXTS = {
    "ott-a": f"Yesterday {DECIDED} opened the library in Leeds.",
    "ott-b": "Ottoline Postlethwaite wrote from ottoline.p@example.org about the library.",
}
# Imported after the run: nobody's proposals, nobody's decisions.
UNSEEN = {"ott-c": "Le jardinier Charles Postlethwaite habite à Lille depuis 2019."}


def _import(admin: Api, texts: dict[str, str], language: str) -> dict[str, int]:
    records = [{"id": key, "lang": language, "text": text} for key, text in texts.items()]
    return import_records(admin, records)


def _spans(api: Api, document_id: int) -> list[dict[str, Any]]:
    return list(api.get(f"documents/{document_id}/spans/?limit=1000")["results"])


def _release(admin: Api, **body: str) -> dict[str, Any]:
    release = admin.post("releases/", {"format": "jsonl", **body}, expect=202)
    return dict(
        wait_for(lambda: admin.get(f"releases/{release['id']}/"),
                 lambda row: row["status"] not in ("queued", "running"), 300, "the release")
    )  # fmt: skip


def _done(annotator: Api, document_id: int) -> None:
    version = annotator.get(f"documents/{document_id}/")["version"]
    annotator.patch(f"documents/{document_id}/", {"status": "done", "version": version})


def test_a_decision_destroys_no_proposal_and_the_release_sees_every_name(
    stack: Stack, api: dict[str, Api]
) -> None:
    admin, annotator = api["admin"], api["annotator_en"]
    ids = _import(admin, TEXTS, "en")
    run = admin.post("runs/", {"language": "en"}, expect=202)
    wait_for(lambda: admin.get(f"runs/{run['id']}/"),
             lambda row: row["status"] in ("done", "failed"), 300, "the run")  # fmt: skip
    text_b = TEXTS["ott-b"]
    before = {(s["start"], s["end"]): s for s in _spans(annotator, ids["ott-b"])}
    full_name = (0, len("Ottoline Postlethwaite"))
    email_at = text_b.index("ottoline.p@example.org")
    email = (email_at, email_at + len("ottoline.p@example.org"))
    assert full_name in before and email in before, sorted(before)

    # The name in A is decided; the worker proposes what is known wherever it occurs.
    start = TEXTS["ott-a"].index(DECIDED)
    decided = [s for s in _spans(annotator, ids["ott-a"]) if s["start"] == start]
    if decided and decided[0]["end"] == start + len(DECIDED):
        annotator.patch(f"documents/{ids['ott-a']}/spans/{decided[0]['id']}/",
                        {"version": decided[0]["version"], "status": "accepted"})  # fmt: skip
    else:
        annotator.post(f"documents/{ids['ott-a']}/spans/",
                       {"start": start, "end": start + len(DECIDED), "label": "PER"},
                       expect=201)  # fmt: skip
    stack.wait_idle()

    after = {(s["start"], s["end"]): s for s in _spans(annotator, ids["ott-b"])}
    for place in (full_name, email):
        assert after[place]["id"] == before[place]["id"]
        assert after[place]["status"] == "proposed"
        assert after[place]["version"] == before[place]["version"]

    # An annotator who accepts whatever is proposed, label by label, and marks both done.
    for document_id in ids.values():
        labels = {s["label"] for s in _spans(annotator, document_id) if s["status"] == "proposed"}
        for label in sorted(labels):
            annotator.post(f"documents/{document_id}/spans/bulk/",
                           {"status": "accepted", "label": label})  # fmt: skip
        _done(annotator, document_id)
    english = _release(admin, language="en", strategy="realistic")
    assert english["status"] == "done", english
    body = admin.call("GET", f"releases/{english['id']}/download/", expect=200).text
    for word in ("Ottoline", "Postlethwaite", "Featherstonehaugh", "ottoline.p"):
        assert word.casefold() not in body.casefold(), word

    # A French document nobody annotated, marked done: the release's detection refuses it.
    # The English decisions' propagation pass (a window after them) has landed: nothing of
    # theirs is proposed in the French document, which nobody annotates.
    stack.wait_idle()
    unseen = _import(admin, UNSEEN, "fr")
    _done(api["annotator_fr"], unseen["ott-c"])
    french = _release(admin, language="fr", strategy="realistic")
    assert french["status"] == "refused", french
    named = {leak["document_id"] for leak in french["leak_report"]}
    assert named == {unseen["ott-c"]}, french["leak_report"]


def test_a_persons_span_over_part_of_a_proposal_leaves_the_rest_of_it_to_decide(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 29, 1: a person's span over part of a wider proposal never decides the rest of it
    as a side effect, whether the person adds it or accepts everything at once."""
    admin, annotator = api["admin"], api["annotator_en"]
    name = "Ottoline Postlethwaite"
    one = f"Dear {name}, your parcel is here."
    two = f"{name} wrote again."
    at = one.index(name)
    ids = import_records(admin, [
        {"id": "part-add", "lang": "en", "text": one,
         "spans": [{"start": at, "end": at + len(name), "label": "PER"}]},
        {"id": "part-bulk", "lang": "en", "text": two,
         "spans": [{"start": 0, "end": len("Ottoline"), "label": "PER"},
                   {"start": 0, "end": len(name), "label": "PER"}]},
    ])  # fmt: skip

    # The annotator adds the first name alone: the surname stays proposed, in view.
    annotator.post(f"documents/{ids['part-add']}/spans/",
                   {"start": at, "end": at + len("Ottoline"), "label": "PER"},
                   expect=201)  # fmt: skip
    spans = _spans(annotator, ids["part-add"])
    left = [(one[s["start"] : s["end"]], s["status"]) for s in spans if s["source"] != "human"]
    assert left == [("Postlethwaite", "proposed")], spans
    version = annotator.get(f"documents/{ids['part-add']}/")["version"]
    refused = annotator.call("PATCH", f"documents/{ids['part-add']}/",
                             json={"status": "done", "version": version}, expect=400)  # fmt: skip
    assert "undecided" in refused.json()["detail"]

    # Accepting all at once takes the full name, not the first name that starts with it.
    annotator.post(f"documents/{ids['part-bulk']}/spans/bulk/",
                   {"status": "accepted", "label": "PER"})  # fmt: skip
    spans = _spans(annotator, ids["part-bulk"])
    assert [two[s["start"] : s["end"]] for s in spans if s["status"] == "accepted"] == [name]

    annotator.post(f"documents/{ids['part-add']}/spans/bulk/",
                   {"status": "accepted", "label": "PER"})  # fmt: skip
    for document_id in ids.values():
        _done(annotator, document_id)
    stack.wait_idle()
    release = _release(admin, language="en", strategy="S2")
    assert release["status"] == "done", release
    body = admin.call("GET", f"releases/{release['id']}/download/", expect=200).text
    assert "postlethwaite" not in body.casefold() and "ottoline" not in body.casefold()


def test_one_surface_has_one_label_in_every_document(stack: Stack, api: dict[str, Api]) -> None:
    """Issue 29, 7: a proposal accepted with another label than its surface's entity follows
    the entity; a span added with another label on a decided surface is refused."""
    annotator = api["annotator_en"]
    name = "Evander Thistlewood"
    ids = import_records(api["admin"], [
        {"id": "label-a", "lang": "en", "text": f"{name} called.", "spans": []},
        {"id": "label-b", "lang": "en", "text": f"{name} called twice.",
         "spans": [{"start": 0, "end": len(name), "label": "ORG"}]},
        {"id": "label-c", "lang": "en", "text": f"Ask {name}.", "spans": []},
    ])  # fmt: skip
    person = annotator.post(f"documents/{ids['label-a']}/spans/",
                            {"start": 0, "end": len(name), "label": "PER"}, expect=201)  # fmt: skip
    stack.wait_idle()  # its propagation has landed: the ORG proposal learnt its entity
    (org,) = _spans(annotator, ids["label-b"])
    accepted = annotator.patch(f"documents/{ids['label-b']}/spans/{org['id']}/",
                               {"version": org["version"], "status": "accepted"})  # fmt: skip
    assert (accepted["label"], accepted["entity_id"]) == ("PER", person["entity_id"]), accepted
    refused = annotator.call("POST", f"documents/{ids['label-c']}/spans/", expect=409,
                             json={"start": 4, "end": 4 + len(name), "label": "ORG"})  # fmt: skip
    assert "one surface, one label" in refused.json()["detail"]
    assert [s["source"] for s in _spans(annotator, ids["label-c"])] == ["known"]


def test_a_confirmed_letter_and_a_date_word_refuse_no_release_of_other_words(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 29, 4: an NER mistake accepted ("L" of a name a soft hyphen split) asks for a
    confirmation, and once decided flags no "l'été" or "J'ai" elsewhere; nor does a decided
    "hier" every other "hier"."""
    admin, annotator = api["admin"], api["annotator_fr"]
    split = "L\u00adeclerc a écrit hier."
    ids = import_records(admin, [
        {"id": "short-a", "lang": "fr", "text": split,
         "spans": [{"start": 0, "end": 1, "label": "PER"}]},
        {"id": "short-b", "lang": "fr", "text": "J'ai vu l'été hier à la plage.", "spans": []},
    ])  # fmt: skip
    (letter,) = _spans(annotator, ids["short-a"])
    change = {"version": letter["version"], "status": "accepted"}
    refused = annotator.call("PATCH", f"documents/{ids['short-a']}/spans/{letter['id']}/",
                             json=change, expect=400)  # fmt: skip
    assert "single letter" in refused.json()["detail"]
    annotator.patch(f"documents/{ids['short-a']}/spans/{letter['id']}/",
                    {**change, "confirm": True})  # fmt: skip
    rest = split.index("eclerc")
    annotator.post(f"documents/{ids['short-a']}/spans/",
                   {"start": rest, "end": rest + 6, "label": "PER", "confirm": True},
                   expect=201)  # fmt: skip
    hier = split.index("hier")
    annotator.post(f"documents/{ids['short-a']}/spans/",
                   {"start": hier, "end": hier + 4, "label": "DATE"}, expect=201)  # fmt: skip
    stack.wait_idle()
    for document_id in ids.values():
        for span in _spans(annotator, document_id):
            if span["status"] == "proposed":
                annotator.patch(f"documents/{document_id}/spans/{span['id']}/",
                                {"version": span["version"], "status": "rejected"})  # fmt: skip
        _done(annotator, document_id)

    release = _release(admin, language="fr", strategy="S2")

    # (The French release is refused all the same for the first test's unannotated document.)
    named = {leak["document_id"] for leak in release.get("leak_report") or []}
    assert named.isdisjoint(ids.values()), release["leak_report"]


def test_a_lead_splits_a_word_of_a_name_and_a_dismissal_survives_a_change_elsewhere(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 29, 6: a word cut from a name splits off as another person's name, and a
    finding judged harmless stays dismissed when the document changes away from it."""
    admin, lead, annotator = api["admin"], api["lead"], api["annotator_en"]
    name = "Quentin Marchbanks"
    text = "Order reference 06 12 34 56 78 was paid by the clerk."
    ids = import_records(admin, [
        {"id": "split-a", "lang": "en", "text": f"{name} signed.", "spans": []},
        {"id": "dismiss-a", "lang": "en", "text": text, "spans": []},
    ])  # fmt: skip
    person = annotator.post(f"documents/{ids['split-a']}/spans/",
                            {"start": 0, "end": len(name), "label": "PER"}, expect=201)  # fmt: skip
    entity = lead.get(f"entities/{person['entity_id']}/")
    (word,) = [a for a in entity["aliases"] if a["token"] and a["original"] == "Marchbanks"]
    asked = {"aliases": [word["id"]], "version": entity["version"]}
    split = lead.post(f"entities/{entity['id']}/split/", asked, expect=201)
    (moved,) = split["new"]["aliases"]
    assert (moved["id"], moved["token"]) == (word["id"], False)
    assert moved["replacement"] and moved["replacement"] != word["replacement"]

    _done(annotator, ids["dismiss-a"])
    stack.wait_idle()
    refused = _release(admin, language="en", strategy="S2")
    assert refused["status"] == "refused", refused
    rows = admin.get(f"releases/{refused['id']}/leaks/?limit=1000")["results"]
    (row,) = [r for r in rows if r["document_id"] == ids["dismiss-a"]]
    for finding in row["findings"]:
        admin.post(f"releases/{refused['id']}/dismissals/", {
            "document_id": ids["dismiss-a"], "start": finding["document_start"],
            "end": finding["document_end"], "detector": finding["source"],
            "reason": "an order reference, not a phone number",
        }, expect=201)  # fmt: skip
    # The annotator decides something else in the document, away from what was dismissed.
    clerk = text.index("clerk")
    annotator.post(f"documents/{ids['dismiss-a']}/spans/",
                   {"start": clerk, "end": clerk + 5, "label": "PER"}, expect=201)  # fmt: skip
    _done(annotator, ids["dismiss-a"])
    stack.wait_idle()

    again = _release(admin, language="en", strategy="S2")

    named = {leak["document_id"] for leak in again.get("leak_report") or []}
    assert ids["dismiss-a"] not in named, again["leak_report"]


def test_a_latin_name_in_an_arabic_post_is_proposed_and_refuses_the_release_unseen(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 29, 3: Arabic has no model, but the English one reads the Latin names of an
    Arabic post, on the `ner` queue: in a run, and in the release's check of a post nobody
    annotated."""
    admin, annotator = api["admin"], api["annotator_ar"]
    text = "كتب Haytham Tarabishi منشورا جديدا على صفحته أمس."
    name = text.index("Haytham")
    ids = import_records(admin, [{"id": "latin-in-ar", "lang": "ar", "text": text}])
    run = admin.post("runs/", {"language": "ar"}, expect=202)
    run = wait_for(lambda: admin.get(f"runs/{run['id']}/"),
                   lambda row: row["status"] in ("done", "failed"), 300, "the run")  # fmt: skip
    assert run["status"] == "done", run
    assert run["models_used"].get("en"), run["models_used"]  # the model that read it
    spans = _spans(annotator, ids["latin-in-ar"])
    found = {(s["start"], s["end"], s["source"]) for s in spans}
    assert (name, name + len("Haytham Tarabishi"), "ner") in found, spans

    unseen = import_records(admin, [{"id": "latin-in-ar-unseen", "lang": "ar", "text": text}])
    _done(annotator, unseen["latin-in-ar-unseen"])
    release = _release(admin, language="ar", strategy="S2")
    assert release["status"] == "refused", release
    mine = [row for row in release["leak_report"]
            if row["document_id"] == unseen["latin-in-ar-unseen"]]  # fmt: skip
    assert mine, release["leak_report"]
    assert ("ner", name) in {(f["source"], f["document_start"]) for f in mine[0]["findings"]}


def test_a_refusal_names_the_whole_word_and_leaves_no_file_behind(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 29, 5 and 8: a decided surname written with a zero-width space inside, of which a
    person decided only the letters after it, refuses the release naming the whole word (not
    its first letter); and the refused release leaves no data file, part file or not."""
    admin, annotator = api["admin"], api["annotator_en"]
    ids = import_records(
        admin, [{"id": "whole-a", "lang": "en", "text": "Thaddeus Pennycuick wrote."}]
    )
    annotator.post(f"documents/{ids['whole-a']}/spans/",
                   {"start": 0, "end": len("Thaddeus Pennycuick"), "label": "PER"},
                   expect=201)  # fmt: skip
    stack.wait_idle()
    text = "Ms P\u200bennycuick replied."
    later = import_records(admin, [{"id": "whole-b", "lang": "en", "text": text}])
    rest = text.index("ennycuick")
    annotator.post(f"documents/{later['whole-b']}/spans/",
                   {"start": rest, "end": rest + 9, "label": "PER", "confirm": True},
                   expect=201)  # fmt: skip
    _done(annotator, later["whole-b"])
    stack.wait_idle()

    release = _release(admin, language="en", strategy="S2")

    assert release["status"] == "refused", release
    (row,) = [r for r in release["leak_report"] if r["document_id"] == later["whole-b"]]
    known = [f for f in row["findings"] if f["source"] == "known"]
    assert known and known[0]["uncovered"] == [[3, rest + 9]], row
    assert not list(stack.var_dir.rglob("*.part")), "a refused release left a part file"
    assert not list(stack.var_dir.rglob(f"*-v{release['version']}-*")), "and no data file"


# The decided name, and the same name written as another hand (or keyboard) would write it.
ARABIC = "فاطمة مصطفى"
VARIANTS = {
    "tatweel": "فاطمــة مصطفى",
    "zero-width-joiner": "فاط\u200dمة مصطفى",
    "alef-maqsura": "فاطمة مصطفي",
    "ta-marbuta": "فاطمه مصطفى",
    "presentation-forms": unicodedata.normalize("NFC", "\ufed1\ufe8e\ufec3\ufee4\ufe94 مصطفى"),
}
LATIN = "Moshe Chaya"
LATIN_VARIANTS = {
    "zero-width-space": "Mo\u200bshe Chaya",
    "fullwidth": "Ｍｏｓｈｅ Ｃｈａｙａ",
    "mathematical-bold": "𝐌𝐨𝐬𝐡𝐞 𝐂𝐡𝐚𝐲𝐚",
    # Issue 29, 2: look-alike letters of other scripts (a Greek Mu, a Cyrillic Es).
    "greek-look-alike": "\u039coshe Chaya",
    "cyrillic-look-alike": "Moshe \u0421haya",
}


@pytest.mark.parametrize(
    ("language", "decided", "variants"),
    [("ar", ARABIC, VARIANTS), ("fr", LATIN, LATIN_VARIANTS)],
    ids=["arabic", "latin"],
)
def test_a_decided_name_written_another_way_refuses_the_release(
    stack: Stack, api: dict[str, Api], language: str, decided: str, variants: dict[str, str]
) -> None:
    admin, annotator = api["admin"], api[f"annotator_{language}"]
    texts = {f"{language}-decided": f"{decided} :", **{
        f"{language}-{name}": f"{written} ." for name, written in variants.items()
    }}  # fmt: skip
    ids = _import(admin, texts, language)
    annotator.post(f"documents/{ids[f'{language}-decided']}/spans/",
                   {"start": 0, "end": len(decided), "label": "PER"}, expect=201)  # fmt: skip
    stack.wait_idle()
    for document_id in ids.values():  # each finished as it stands, proposals rejected
        for span in _spans(annotator, document_id):
            if span["status"] == "proposed":
                annotator.patch(f"documents/{document_id}/spans/{span['id']}/",
                                {"version": span["version"], "status": "rejected"})  # fmt: skip
        _done(annotator, document_id)

    release = _release(admin, language=language, strategy="S2")

    assert release["status"] == "refused", release
    named = {leak["document_id"] for leak in release["leak_report"]}
    missing = sorted(name for name in variants if ids[f"{language}-{name}"] not in named)
    assert not missing, f"the refusal does not name the documents written with {missing}"


def test_a_clinical_note_gets_its_names_dates_and_numbers_proposed_not_its_shorthand(
    stack: Stack, api: dict[str, Api]
) -> None:
    """Issue 30: on the stack's worker, a nursing note's shorthand is not proposed, while its
    name written again in lower case, its partial date and its pager number are; a post's
    Reddit user and a handle glued to dashes are found. Marked done with nobody's decision,
    the note refuses the release: the release's own detection reads it the same way."""
    admin, annotator = api["admin"], api["annotator_en"]
    note = (
        "Pt seen by Dr. Thornbury on 10/3. CXR clear, NSR, HR 80, BP 120/60, PO QD.\n"
        "Wife asked for thornbury again, pager 4567. COPD stable."
    )
    post = "thanks u/okapi_seven and --@mossgiel_x for the tip"
    ids = _import(admin, {"clin-note": note, "clin-post": post}, "en")
    run = admin.post("runs/", {"language": "en"}, expect=202)
    wait_for(lambda: admin.get(f"runs/{run['id']}/"),
             lambda row: row["status"] in ("done", "failed"), 300, "the run")  # fmt: skip
    found = {note[s["start"] : s["end"]]: s["label"] for s in _spans(annotator, ids["clin-note"])}
    for shorthand in ("Pt", "CXR", "NSR", "HR", "PO QD", "COPD", "120/60"):
        assert not any(shorthand in surface.split(", ") for surface in found), found
        assert shorthand not in found, found
    assert found.get("thornbury") == "PER", found
    assert found.get("10/3") == "DATE", found
    assert found.get("4567") == "PHONE", found
    handles = {post[s["start"] : s["end"]]: s["label"] for s in _spans(annotator, ids["clin-post"])}
    assert handles.get("u/okapi_seven") == "USERNAME", handles
    assert handles.get("@mossgiel_x") == "USERNAME", handles

    # The same note imported after the run, nobody's proposals, marked done; "dr thornbury"
    # written in lower case is found by the release's detection as by a run's.
    unseen = _import(admin, {"clin-unseen": note.replace("Dr. Thornbury", "dr thornbury")}, "en")
    _done(annotator, unseen["clin-unseen"])
    release = _release(admin, language="en", strategy="realistic")
    assert release["status"] == "refused", release
    report = {leak["document_id"]: leak for leak in release["leak_report"]}
    assert unseen["clin-unseen"] in report, release["leak_report"]
    hits = {
        (f["document_start"], f["document_end"]) for f in report[unseen["clin-unseen"]]["findings"]
    }
    unseen_text = note.replace("Dr. Thornbury", "dr thornbury")
    at = unseen_text.index("thornbury again")
    assert (at, at + len("thornbury")) in hits, hits
