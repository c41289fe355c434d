"""Score log text against the catalogue: a ranked list of causes with a confidence.

Each signature adds the weights of its signals found in the normalised text (see
`normalize`). Evidence printed inside an "Exception ignored in" block counts for little
(the run did not fail there). Noise is called harmless only when no real failure is in the
text, and the fallback cause only when nothing else matched. A text about loading that no
signature places (nothing, or only the fallback, matched) gets the causes of the most similar
real reports (`similar`), with a low confidence and the shared words as evidence; so does a
text whose first cause is only a symptom, below the causes its signals name. No confidence
the signals give exceeds how often its cause was right when named first on texts never seen
(`precision`); the similar reports' own stay at most SIMILAR_CONFIDENCE.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice, pairwise
from typing import Any

from loadertune.explain.catalogue import CATALOGUE
from loadertune.explain.normalize import Parsed, normalize
from loadertune.explain.precision import ceiling, shipped_record
from loadertune.explain.signature import Signal, Signature
from loadertune.explain.similar import TOKEN, Similar, similar_causes

MAX_EVIDENCE = 4
MAX_HITS = 50  # a log can repeat one error thousands of times
MAX_TEXT = 4 * 2**20  # the end of a long log holds the failure
IGNORED_WEIGHT = 0.25  # a signal seen only in shutdown noise
REAL_FAILURE = 2.5  # a non-harmless cause this strong outranks any noise
MAX_CONFIDENCE = 0.97
FALLBACK_CONFIDENCE = 0.4  # "a DataLoader failed" is a direction, not a diagnosis
FOLDED_WEIGHT = 0.8  # a signal found only in another case or across a line break
LOOSE_MAX_TEXT = 2**18  # retyped or re-wrapped messages are in posts, not in long logs
SIMILAR_CONFIDENCE = 0.3  # the most similar reports' cause is right about a quarter of the time
# a symptom named first (another cause `explains` it: workers that hang, raise or die) says
# what failed, not why: the causes of the most similar reports follow the signals' first
# three, for the user to rule out (replayed over the blind batches, models of the earlier
# batches only, the established cause is then in the list for 622 of 940 texts, 601 without)
SIMILAR_AFTER_SYMPTOM = 2
SIGNALS_BEFORE_SIMILAR = 3


@dataclass
class Match:
    """A signature found in the text: its score, the lines that show it, values pulled out."""

    signature: Signature
    evidence: list[tuple[int, str]]
    details: dict[str, str] = field(default_factory=dict)
    score: float = 0.0
    confidence: float = 0.0
    live: list[Any] = field(default_factory=list)
    similar: Similar | None = None  # set when named by similar reports, not by its signals
    record: tuple[int, int] | None = None  # (named first, right) when that record capped it

    @property
    def detail(self) -> str:
        """The signature's detail sentence filled with captured values ('' if any is missing)."""
        try:
            return self.signature.detail.format(**self.details) if self.signature.detail else ""
        except (KeyError, IndexError):
            return ""

    def to_dict(self) -> dict[str, Any]:
        s = self.signature
        return {
            "id": s.id, "title": s.title, "cause": s.cause, "confirm": s.confirm,
            "fix": s.fix, "priority": s.priority, "harmless": s.harmless,
            "score": round(self.score, 2), "confidence": self.confidence,
            "detail": self.detail,
            "evidence": [{"line": n, "text": t} for n, t in self.evidence],
            "details": self.details,
            "basis": "similar reports" if self.similar else "signals",
            "similarity": self.similar.similarity if self.similar else None,
            "record": ({"named_first": self.record[0], "right": self.record[1]}
                       if self.record else None),
            "live": [f.to_dict() for f in self.live],
        }


@dataclass
class Explanation:
    """The causes found in one text, best first (empty: unknown)."""

    matches: list[Match]

    @property
    def known(self) -> bool:
        return bool(self.matches)

    @property
    def primary(self) -> Match | None:
        return self.matches[0] if self.matches else None

    @property
    def harmless(self) -> bool:
        return self.primary is not None and self.primary.signature.harmless

    @property
    def by_signals(self) -> bool:
        """Whether the first cause was found by its own signals (not by similar reports)."""
        return self.primary is not None and self.primary.similar is None

    def ids(self) -> list[str]:
        return [m.signature.id for m in self.matches]

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": self.known,
            "cause": self.primary.signature.id if self.primary else "unknown",
            "confidence": self.primary.confidence if self.primary else 0.0,
            "harmless": self.harmless,
            "causes": [m.to_dict() for m in self.matches],
            "suggest": None if self.by_signals else "loadertune doctor [SCRIPT.py | DATASET]",
        }


Hit = tuple[int, dict[str, str]]


def _hits(signal: Signal, parsed: Parsed, limit: int = MAX_HITS,
          folded: bool = False, flat: bool = False) -> list[Hit]:
    """(line index, named groups) of the first ``limit`` places ``signal`` is found
    (``folded``: in any case; ``flat``: in the text with its single line breaks as spaces)."""
    if flat and signal.where != "text":
        return []
    if signal.where == "text" and signal.words and not any(
            word in parsed.lowered for word in signal.words):
        return []  # none of the words the pattern needs: no search
    key = (signal.pattern, signal.where, folded, flat, limit)
    hits = parsed.searched.get(key)
    if hits is None:
        hits = parsed.searched[key] = _search(signal, parsed, limit, folded, flat)
    return hits


def _search(signal: Signal, parsed: Parsed, limit: int, folded: bool, flat: bool) -> list[Hit]:
    pattern = signal.folded if folded else signal.compiled
    if signal.where == "text":
        found = islice(pattern.finditer(parsed.flat if flat else parsed.text), limit)
        return [(parsed.line_at(m.start()), m.groupdict()) for m in found]
    view = parsed.view(signal.where)
    matches = ((i, pattern.search(item)) for i, item in view)
    return list(islice(((i, m.groupdict()) for i, m in matches if m), limit))


# where else a text signal is looked for when the text does not hold it as written, and what
# such a hit is worth: the message retyped in another case, or wrapped at another width
LOOSE = ((True, False, FOLDED_WEIGHT), (False, True, FOLDED_WEIGHT),
         (True, True, FOLDED_WEIGHT ** 2))


def _found(signal: Signal, parsed: Parsed) -> tuple[list[Hit], float]:
    """Where ``signal`` is found (as written, else retyped or re-wrapped) and its weight."""
    limit = max(MAX_HITS, signal.min_count)
    hits, weight = _hits(signal, parsed, limit), signal.weight
    loose = signal.where in ("text", "exception") and len(parsed.text) <= LOOSE_MAX_TEXT
    for folded, flat, factor in LOOSE if loose else ():
        if len(hits) >= signal.min_count:
            break
        if (folded and signal.ignores_case) or (flat and not parsed.joins_lines):
            continue  # the same search again: the pattern ignores case, or no line to join
        hits = _hits(signal, parsed, limit, folded, flat)
        weight = signal.weight * factor
    return hits, weight


def score_signature(signature: Signature, parsed: Parsed) -> Match | None:
    """The signature's score on this text, or None when it does not apply."""
    if signature.context and not any(_hits(s, parsed, 1) for s in signature.context):
        return None
    # the key signals first: without one of them the other signals need not be looked for
    keys = [s for s in signature.signals if s.key]
    found = {id(s): _found(s, parsed) for s in keys}
    if keys and not any(len(found[id(s)][0]) >= s.min_count for s in keys):
        return None
    score = 0.0
    key_found = not keys
    lines: list[int] = []
    details: dict[str, str] = {}
    for signal in sorted(signature.signals, key=lambda sig: -sig.weight):  # best evidence first
        hits, weight = found.get(id(signal)) or _found(signal, parsed)
        if len(hits) < signal.min_count:
            continue
        live = [h for h in hits if h[0] not in parsed.ignored]
        if not live and not signature.harmless and weight > 0:
            weight *= IGNORED_WEIGHT
        score += weight
        if signal.weight <= 0:
            continue
        key_found = key_found or signal.key
        for i, groups in (live or hits)[:MAX_EVIDENCE]:
            if i not in lines:
                lines.append(i)
            for name, value in groups.items():
                if value is not None:
                    details.setdefault(name, value.strip())
    if not key_found or score < signature.min_score:
        return None
    evidence = [(parsed.origin[i], parsed.lines[i].strip()[:300])
                for i in sorted(lines[:MAX_EVIDENCE])]
    return Match(signature, evidence, details, score)


def confidence(score: float, total: float) -> float:
    """Grows with the score; shrinks with the share other causes take of the total score."""
    base = 1 - 0.5 ** score
    share = score / total if total > 0 else 1.0
    return round(min(base * (0.5 + 0.5 * share), MAX_CONFIDENCE), 2)


def causes_before_symptoms(matches: list[Match]) -> list[Match]:
    """Move each cause just above the highest-ranked symptom it `explains` (order otherwise
    kept)."""
    out = list(matches)
    for cause in matches:
        symptoms = [i for i, m in enumerate(out) if m.signature.id in cause.signature.explains]
        if symptoms and min(symptoms) < out.index(cause):
            out.remove(cause)
            out.insert(min(symptoms), cause)
    return out


def rank(matches: list[Match]) -> list[Match]:
    """Best first; fallback only alone; harmless noise below any real failure."""
    real = [m for m in matches if not m.signature.fallback]
    if real:
        matches = real
    failing = any(not m.signature.harmless and m.score >= REAL_FAILURE for m in matches)
    matches.sort(key=lambda m: (failing and m.signature.harmless, -m.score,
                                -m.signature.priority, m.evidence[0][0] if m.evidence else 0))
    matches = causes_before_symptoms(matches)
    total = sum(max(m.score, 0.0) for m in matches)
    for i, m in enumerate(matches):
        # no surer than the cause was right when named first on texts never seen before
        raw, cap = confidence(m.score, total), ceiling(m.signature.id)
        m.confidence = max(0.01, round(min(raw, cap), 2))
        if cap < raw:
            m.record = shipped_record()[m.signature.id]
        if m.signature.fallback:
            m.confidence = min(m.confidence, FALLBACK_CONFIDENCE)
        if i > 0:  # never more sure of a cause ranked below another
            m.confidence = min(m.confidence, matches[i - 1].confidence)
    return matches


def by_similar_reports(parsed: Parsed, catalogue: tuple[Signature, ...]) -> list[Match]:
    """Matches for the causes of the reports most like the text (a failure, never noise),
    with the lines that hold the words it shares with them as evidence."""
    signatures = {s.id: s for s in catalogue if not s.harmless and not s.fallback}
    out: list[Match] = []
    for i, near in enumerate(similar_causes(parsed.text, set(signatures))):
        shared = set(near.words[:3])
        lines = [n for n, line in enumerate(parsed.lines)
                 if shared.intersection(TOKEN.findall(line.lower()))]
        evidence = [(parsed.origin[n], parsed.lines[n].strip()[:300])
                    for n in lines[:MAX_EVIDENCE]]
        confidence = round(min(SIMILAR_CONFIDENCE, near.similarity) * 0.8 ** i, 2)
        out.append(Match(signatures[near.cause], evidence, score=near.similarity,
                         confidence=confidence, similar=near))
    return out


def symptoms_of(catalogue: tuple[Signature, ...]) -> frozenset[str]:
    """The ids some entry of ``catalogue`` `explains`: symptoms, not causes."""
    return frozenset(symptom for s in catalogue for symptom in s.explains)


SYMPTOMS = symptoms_of(CATALOGUE)


def below_symptom(matches: list[Match], parsed: Parsed,
                  catalogue: tuple[Signature, ...]) -> list[Match]:
    """``matches`` with the similar reports' causes they lack after their first three."""
    named = {m.signature.id for m in matches}
    extra = [m for m in by_similar_reports(parsed, catalogue)
             if m.signature.id not in named][:SIMILAR_AFTER_SYMPTOM]
    return matches[:SIGNALS_BEFORE_SIMILAR] + extra + matches[SIGNALS_BEFORE_SIMILAR:]


def explain_text(text: str, catalogue: tuple[Signature, ...] = CATALOGUE) -> Explanation:
    """Every cause found in ``text`` (a traceback, a log or a pasted issue), best first."""
    parsed = normalize(text[-MAX_TEXT:])
    matches = rank([m for s in catalogue if (m := score_signature(s, parsed)) is not None])
    symptoms = SYMPTOMS if catalogue is CATALOGUE else symptoms_of(catalogue)
    if not matches or matches[0].signature.fallback:
        matches = by_similar_reports(parsed, catalogue) + matches
    elif matches[0].signature.id in symptoms:
        matches = below_symptom(matches, parsed, catalogue)
    for before, after in pairwise(matches):  # never more sure of a cause ranked lower
        after.confidence = min(after.confidence, before.confidence)
    return Explanation(matches)


def add_live_probes(explanation: Explanation) -> None:
    """Attach this machine's results of the probes each cause names (no dataset needed)."""
    from loadertune.doctor.context import DoctorContext
    from loadertune.doctor.runner import PROBES, run_probe

    ctx = DoctorContext(measure=False)
    cache: dict[str, list[Any]] = {}
    for match in explanation.matches:
        for name in match.signature.probes:
            if name not in PROBES:
                continue
            if name not in cache:
                cache[name] = run_probe(name, PROBES[name], ctx)
            match.live.extend(cache[name])
