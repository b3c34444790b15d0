"""`clinical-en-philter-i2b2`: the five i2b2 notes that BCHSI/philter-ucsf ships with their
PHI annotations (`data/i2b2_xml/*.xml`, the i2b2 2014 de-identification format)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from bench.devdata import Document, Licence, Provenance, SetSpec, Snapshot, Span

FOLDER = "data/i2b2_xml"
LICENCE = Licence("BSD 3-Clause", "LICENSE", "BSD 3-Clause License")

# i2b2 2014's PHI types (the TYPE attribute) → Cloak's labels; the whole inventory, so that a
# snapshot with more notes converts too.
LABELS: dict[str, str | None] = {
    "PATIENT": "PER",
    "DOCTOR": "PER",
    "USERNAME": "USERNAME",
    "PROFESSION": "PROFESSION",
    "HOSPITAL": "LOC",
    "ROOM": "LOC",
    "DEPARTMENT": "ORG",
    "ORGANIZATION": "ORG",
    "STREET": "ADDRESS",
    "CITY": "LOC",
    "STATE": "LOC",
    "COUNTRY": "LOC",
    "ZIP": "ADDRESS",
    "LOCATION-OTHER": "LOC",
    "AGE": "ID",
    "DATE": "DATE",
    "PHONE": "PHONE",
    "FAX": "PHONE",
    "EMAIL": "EMAIL",
    "URL": "URL",
    "IPADDR": "IP",
    "SSN": "ID",
    "MEDICALRECORD": "ID",
    "HEALTHPLAN": "ID",
    "ACCOUNT": "ID",
    "LICENSE": "ID",
    "VEHICLE": "ID",
    "DEVICE": "ID",
    "BIOID": "ID",
    "IDNUM": "ID",
}


def note(snapshot: Snapshot, path: str) -> tuple[Document, list[str]]:
    """The note of one i2b2 XML file, and what was odd about it."""
    root = ElementTree.fromstring(snapshot.read_text(path))
    text = root.findtext("TEXT")
    assert text is not None, f"{path}: no TEXT"
    notes = []
    spans = []
    tags = root.find("TAGS")
    for tag in tags if tags is not None else []:
        start, end, kind = int(tag.attrib["start"]), int(tag.attrib["end"]), tag.attrib["TYPE"]
        if text[start:end] != tag.attrib["text"]:
            raise AssertionError(f"{path}: {tag.attrib} does not match {text[start:end]!r}")
        label = LABELS[kind]
        if label is None:
            notes.append(f"{path}: dropped {kind} {tag.attrib['text']!r}")
            continue
        spans.append(Span(start, end, label))
    doc_id = "philter-ucsf/" + path.rsplit("/", 1)[-1].removesuffix(".xml")
    return Document(doc_id, "en", "clinical", text, spans), notes


def convert(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    documents: list[Document] = []
    notes: list[str] = []
    for path in snapshot.files(FOLDER):
        if path.endswith(".xml"):
            document, odd = note(snapshot, path)
            documents.append(document)
            notes += odd
    assert documents, f"no XML file under {FOLDER}"
    provenance = snapshot.provenance(
        licence=LICENCE,
        description=(
            "Five discharge/clinic notes of the i2b2 2014 de-identification challenge (PHI "
            "already replaced by surrogates), as Philter's repository ships them for its "
            "default configuration, with their gold PHI annotations. Domain: clinical, English."
        ),
        conversion=[
            f"Each `{FOLDER}/*.xml` is one document; its id is `philter-ucsf/` and the file's stem "
            "(`philter-ucsf/110-01`), which puts 110-01, 110-02 and 110-04 in `dev` and "
            "110-03 and 111-01 in `heldout`: the halves of the figures the repository's README "
            "published before this set was rebuilt (the bare stem would swap them). "
            "The text is the `TEXT` element's content exactly as parsed (leading blank lines "
            "included), and each child of `TAGS` gives a span by its `start`/`end` attributes, "
            "checked against its `text` attribute. The same notes also lie under "
            "`philter_ucsf/data/` and `build/lib/` (copies) and as plain text in "
            "`data/i2b2_notes/` with `data/i2b2_anno/`: only the XML was read.",
            "Everything annotated is kept: the XML files are the challenge's own annotations "
            "(the README's `improve_i2b2_notes.py` step, which drops non-HIPAA PHI, was not "
            "applied).",
        ],
        labels=LABELS,
        notes=notes,
    )
    return documents, provenance


SET = SetSpec("clinical-en-philter-i2b2", "BCHSI/philter-ucsf", convert)
