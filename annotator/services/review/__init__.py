"""The lead's review queue: what the system finds wrong in the project's decisions, what
annotators flag, and the lead's resolution of each.

Items come from three places:

- an annotator's flag (`annotator.services.spans`), with their comment;
- a choice refused by the correspondence table: an annotator asked for a decision or a
  pseudonym that the surface's recorded choice contradicts (409, `SurfaceConflict`); the
  attempt is recorded here (`review_attempt_record`, called by what follows a refused
  decision, `annotator.services.after_decision`) rather than lost;
- `review_scan`, which looks over the whole project (a task, queued when the lead opens the
  queue or asks for it; see `review_scan_request`).

Resolving (`review_resolve`) applies the lead's decision to the entity in the table, to every
span of the entity in the corpus, and proposes it wherever the entity's surfaces occur
(propagation); `review_dismiss` closes an item and changes nothing else. Both need a
rationale, which the annotators see on their documents, and both refuse an item that is
resolved already (409).

Where each part lives: `scan` looks over a project and raises what it finds; `attempts` records
a choice the table refused; `resolve` is the lead's resolution, dismissal and comments.
"""
