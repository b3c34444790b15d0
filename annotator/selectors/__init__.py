"""Reads that pages and the API share: one queryset per screen's question, typed."""

from annotator.selectors.documents import document_list

__all__ = ["document_list"]
