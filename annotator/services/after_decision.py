"""What follows a person's decision, in order: the one list.

The span service (`annotator.services.spans`) calls `decided` after each write to a span or a
document's status, inside the write's transaction, and `refused` once a decision the table
refused has rolled back. Each step defers what it sends (a task, a cache write) to the
commit, so a write that rolls back sets off nothing; a step's error is the writer's.
"""

from __future__ import annotations

from annotator.services import learning, propagation, quality
from annotator.services.review import attempts
from annotator.services.span_events import Decided, Refused


def decided(event: Decided) -> None:
    """What a write to spans or a document's status sets off, in this order."""
    # 1. Each choice new to the table is proposed wherever else its surface occurs.
    propagation.new_choices_propagate(event)
    # 2. Each decision on an original counts towards retraining the language's model.
    learning.decisions_count(event)
    # 3. A document marked done is new gold, or a pair to agree on: the numbers change.
    quality.document_done(event)


def refused(event: Refused) -> None:
    """What a decision the table refused sets off: the lead's review records it."""
    attempts.refusal_record(event)
