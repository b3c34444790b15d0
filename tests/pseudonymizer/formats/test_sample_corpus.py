from __future__ import annotations

from pseudonymizer.formats import read_documents
from tests.data import SAMPLE_CORPUS


def test_the_sample_corpus_reads_with_every_span_matching_its_text() -> None:
    documents = list(read_documents(SAMPLE_CORPUS))

    assert len(documents) == 24
    assert len({d.external_id for d in documents}) == 24
    assert all(d.language for d in documents)
    assert all(d.spans for d in documents)
    for document in documents:
        for span in document.spans:
            assert 0 <= span.start < span.end <= len(document.text)
            assert span.source == "import"
