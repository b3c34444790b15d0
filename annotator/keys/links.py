"""Candidate links: pairs of entities of one label that may be one referent, for a lead to
link or merge.

Found through the blind index (`annotator.keys.words`), never by decrypting the table:

- transliteration: the aliases share a consonant skeleton ("Moshe Chaya", "موشيه حايا");
  told "similar spelling" when both are in one script ("Mohammed", "Muhammad");
- shared words: most of their words are one ("Chaya" decided alone, "Moshe Chaya");
- the same pseudonym chosen twice: their replacements share words ("Raj Avrom", "Raj"), as
  though whoever chose them thought of one person (two surfaces cannot share a whole
  replacement: the table refuses it).

The work is bounded, whatever the size of the table: it starts from one entity, or from the
`scan` newest entities (of one label), looks each of their digests up in the index, and
leaves out a digest that more than `FANOUT` entities share (a "Rue", an "al").
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count

from annotator.keys.models import AliasWord, Entity
from annotator.keys.scope import Scope
from annotator.keys.words import REPLACEMENT, SKELETON
from annotator.routers import keys_alias

SCAN = 200
FANOUT = 25
LIMIT = 50
# Shared words count when they are at least this share of the two entities' words.
MIN_OVERLAP = 0.5

TRANSLITERATION = "transliteration"
SPELLING = "similar spelling"
SHARED_WORDS = "shared words"
SAME_PSEUDONYM = "same pseudonym chosen twice"


@dataclass(frozen=True)
class Candidate:
    """Two entities that may be one: `entity_id` < `other_id`; the reasons, best first."""

    entity_id: int
    other_id: int
    label: str
    score: float
    reasons: tuple[str, ...]


def _kind(digest: str) -> str:
    if digest.startswith(SKELETON):
        return SKELETON
    if digest.startswith(REPLACEMENT):
        return REPLACEMENT
    return ""


def link_candidates(
    scope: Scope,
    *,
    entity_id: int | None = None,
    label: str = "",
    scan: int = SCAN,
    limit: int = LIMIT,
) -> list[Candidate]:
    """Scored candidate pairs, best first: for `entity_id`, or among the `scan` newest
    entities (of `label`) and the entities they share digests with."""
    database = keys_alias()
    entities = Entity.objects.using(database).filter(project_id=scope.pk)
    if label:
        entities = entities.filter(label=label)
    if entity_id is not None:
        entities = entities.filter(pk=entity_id)
    seeds = list(entities.order_by("-pk").values_list("pk", flat=True)[:scan])
    if not seeds:
        return []
    words = AliasWord.objects.using(database).filter(project_id=scope.pk)
    seed_digests = set(words.filter(alias__entity_id__in=seeds).values_list("digest", flat=True))
    spread = (
        words.filter(digest__in=seed_digests)
        .values("digest")
        .annotate(entities=Count("alias__entity_id", distinct=True))
        .filter(entities__gt=1, entities__lte=FANOUT)
        .values_list("digest", flat=True)
    )
    shared = set(spread)
    if not shared:
        return []
    holders: dict[str, set[int]] = defaultdict(set)
    scripts: dict[tuple[str, int], set[str]] = defaultdict(set)
    labels: dict[int, str] = {}
    rows = words.filter(digest__in=shared).values_list(
        "digest", "alias__entity_id", "alias__script", "alias__entity__label"
    )
    for digest, holder, script, holder_label in rows:
        holders[digest].add(holder)
        scripts[(digest, holder)].add(script)
        labels[holder] = holder_label
    involved = set(labels)
    sizes: dict[tuple[int, str], int] = defaultdict(int)
    counted = (
        words.filter(alias__entity_id__in=involved)
        .values_list("alias__entity_id", "digest")
        .distinct()
    )
    for holder, digest in counted:
        sizes[(holder, _kind(digest))] += 1
    seed_set = set(seeds)
    pairs: dict[tuple[int, int], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for digest, owners in holders.items():
        ordered = sorted(owners)
        for index, first in enumerate(ordered):
            for second in ordered[index + 1 :]:
                if labels[first] != labels[second]:
                    continue
                if first in seed_set or second in seed_set:
                    pairs[(first, second)][_kind(digest)].append(digest)
    found: list[Candidate] = []
    for (first, second), kinds in pairs.items():
        score = 0.0
        reasons: list[str] = []
        if kinds[SKELETON]:
            one_script = all(
                scripts[(digest, first)] == scripts[(digest, second)] for digest in kinds[SKELETON]
            )
            reasons.append(SPELLING if one_script else TRANSLITERATION)
            score += 1.0
        for kind, reason, weight in (("", SHARED_WORDS, 1.0), (REPLACEMENT, SAME_PSEUDONYM, 0.6)):
            common = len(kinds[kind])
            if not common:
                continue
            union = sizes[(first, kind)] + sizes[(second, kind)] - common
            overlap = common / union if union else 0.0
            if overlap >= MIN_OVERLAP:
                reasons.append(reason)
                score += weight * overlap
        if reasons:
            found.append(Candidate(first, second, labels[first], round(score, 3), tuple(reasons)))
    found.sort(key=lambda c: (-c.score, -max(c.entity_id, c.other_id), c.entity_id))
    return found[:limit]
