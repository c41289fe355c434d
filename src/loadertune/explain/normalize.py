"""Undo what real logs do to a traceback before it is matched.

Pasted logs carry rank and timestamp prefixes (torchrun, Lightning, logging), rich/markdown
decoration, Windows paths, lines wrapped at the terminal width, and output of several
processes interleaved, and long logs repeat one line shape thousands of times (progress bars).
`normalize` strips the decoration, joins wrapped lines, drops the repeats and returns the
views the matcher reads: the text, the exception lines, the stack frames, the frame each
exception was raised in, and which lines sit inside an "Exception ignored in" block (noise
printed at shutdown).
"""

from __future__ import annotations

import bisect
import functools
import html
import re
from dataclasses import dataclass

from loadertune.explain.glossary import gloss

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
RANK_PREFIXES = tuple(re.compile(p) for p in (
    r"^\s*\[(?:rank|default|local_rank|worker)?\s*(?P<rank>\d+)\]\s*:\s?",  # [rank0]: [0]:
    r"^\s*(?:rank|local_rank)\s*(?P<rank>\d+)\s*:\s",                     # rank 0: ...
    r"^(?P<rank>\d{1,3}): (?=\S|\s+File )",                               # torchrun 0: ...
))
PREFIXES = RANK_PREFIXES + tuple(re.compile(p) for p in (
    r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?Z?\]?\s*(?:[|-]\s*)?",
    r"^\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s+",
    r"^\[?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\]?(?::[\w.]+)?(?::|\s+-)?\s+",
    r"^>\s?",                                                      # markdown quote
    r"^[│┃]\s?",                                                   # rich box border
))
RIGHT_BORDER = re.compile(r"\s*[│┃]\s*$")
WINDOWS_PATH = re.compile(r"[A-Za-z]:\\|\\(?:site-packages|lib|Lib|envs|Users|AppData)\\")
FRAME_HEAD_NO_FUNC = re.compile(r'File "[^"]*", line \d+,?\s*$')
FRAME_FUNC_CUT = re.compile(r'File "[^"]*", line \d+,? in \w+$')
RICH_PATH = re.compile(r"\.py:\d+\s*$")
EXCEPTION_AT_START = re.compile(r"^[\w.]*(?:Error|Exception|Interrupt|Exit)\b")
FRAME_PATTERNS = tuple(re.compile(p) for p in (
    r'File "(?P<path>[^"]*)", line \d+,? in (?P<func>[\w<>.]+)',        # CPython, faulthandler
    r"File (?P<path>[^\s\"]+\.py):\d+,? in (?P<func>[\w<>.]+)",          # IPython 8
    r"(?P<path>[^\s\[\"]+\.py):\d+ in (?P<func>[\w<>.]+)",               # rich
    r"^\s*(?P<path>\S+\.py) in (?P<func>[\w<>.]+)\(",                    # IPython 7
    r"\[(?P<path>[^\]]+\.py)\]\([^)]*\) in (?P<func>[\w<>.]+)",          # Colab
))
EXCEPTION = re.compile(r"\b(?P<type>[A-Z]\w*(?:Error|Exception|Warning))\b(?::[ \t]*(?P<msg>.*))?")
# the type retyped in lower case ("eoferror: ran out of input"): only with its message
EXCEPTION_LOWER = re.compile(r"\b(?P<type>[a-z]\w*(?:error|exception|warning)):[ \t]*(?P<msg>.*)")
IGNORED_SPAN_LINES = 60
# a long log repeats itself (progress bars, loss lines, one traceback per rank): a line is
# kept until lines of its shape (digits as 0, runs of a character as one) have come this often
REPEATS_KEPT = 8
SHAPE_DIGITS = re.compile(r"\d+")
SHAPE_RUNS = re.compile(r"(.)\1+")
SINGLE_BREAK = re.compile(r"(?<=\S)\n(?=[ \t]*\S)")
# what a web page or a word processor makes of a terminal's characters
HTML_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
CHARACTERS = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u02bc": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"',
    "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u202f": " ",
    "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None,
    "\u2026": "...", "\u2010": "-", "\u2011": "-",
})
MARKDOWN_ESCAPE = re.compile(r"\\([_*<>#\[\]`|])")
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# "Windowsの", "Bus error或者": no word boundary between an ASCII word and CJK text
CJK_CHARACTER = re.compile(f"[{CJK}]")
CJK_TOUCHING_ASCII = re.compile(rf"(?<=[A-Za-z0-9_])(?=[{CJK}])|(?<=[{CJK}])(?=[A-Za-z0-9_])")


@dataclass(frozen=True)
class Parsed:
    """A normalised log: its lines and the views the matcher reads.

    ``lines[i]`` came from original line ``origin[i]`` (1-based); ``frames`` and
    ``exceptions`` are ``(line index, text)``; ``raisers`` holds, for each exception that
    follows a stack, its innermost frame (the code that raised it); ``ignored`` holds the
    indices of lines inside an "Exception ignored in" block.
    """

    lines: tuple[str, ...]
    origin: tuple[int, ...]
    frames: tuple[tuple[int, str], ...]
    exceptions: tuple[tuple[int, str], ...]
    ignored: frozenset[int]
    text: str
    starts: tuple[int, ...]
    flat: str = ""  # text with each single line break a space (same offsets)
    joins_lines: bool = False  # flat differs from text: a search across line breaks can add
    raisers: tuple[tuple[int, str], ...] = ()

    @functools.cached_property
    def lowered(self) -> str:
        """The text in lower case, for a quick look for a word before a regex search."""
        return self.text.lower()

    @functools.cached_property
    def searched(self) -> dict[tuple[object, ...], list[tuple[int, dict[str, str]]]]:
        """The hits of each search already made on this text, by its pattern and view:
        entries share signals (a context of loading words), so each is searched once."""
        return {}

    def view(self, where: str) -> tuple[tuple[int, str], ...]:
        """The ``(line index, text)`` items a frame, raiser or exception signal reads."""
        if where == "frame":
            return self.frames
        return self.raisers if where == "raiser" else self.exceptions

    def line_at(self, offset: int) -> int:
        """Index of the line holding character ``offset`` of ``text``."""
        return bisect.bisect_right(self.starts, offset) - 1


def clean(raw: str) -> str:
    """The text as the terminal printed it: HTML entities, typographic quotes, non-breaking
    and zero-width spaces of a web page or word processor undone; a space where an English
    word touches Chinese, Japanese or Korean text, so that it reads as a word, and the
    English of that text's DataLoader words (`glossary`)."""
    if HTML_ENTITY.search(raw):
        raw = html.unescape(raw)
    raw = raw.translate(CHARACTERS)
    if CJK_CHARACTER.search(raw):
        raw = CJK_TOUCHING_ASCII.sub(" ", gloss(raw))
    return raw


def strip_prefixes(line: str) -> tuple[str, str | None]:
    """(line without rank/timestamp/level/quote/box prefixes, rank the prefix named or None)."""
    line = ANSI.sub("", line)
    rank = None
    for _ in range(6):
        before = line
        for prefix in PREFIXES:
            m = prefix.match(line)
            if m:
                rank = rank or m.groupdict().get("rank")
                line = line[m.end():]
        if line == before:
            break
    line = RIGHT_BORDER.sub("", line)
    if WINDOWS_PATH.search(line):
        line = re.sub(r"\\+", "/", line)
    else:  # markdown's escapes: num\_workers, \_\_main\_\_
        line = MARKDOWN_ESCAPE.sub(r"\1", line)
    return line.rstrip(), rank


def deinterleave(lines: list[tuple[str, str | None]]) -> list[tuple[int, str]]:
    """(1-based origin, line), each rank's lines together, ranks in order of first output.

    A line without a rank prefix belongs to the rank of the line before it (a continuation),
    or to the launcher when none came before. With one rank or none the order is unchanged.
    """
    numbered: list[tuple[str, int, str]] = []
    current = ""
    for number, (line, rank) in enumerate(lines, 1):
        current = rank if rank is not None else current
        numbered.append((current, number, line))
    first: dict[str, int] = {}
    for i, (rank, _, _) in enumerate(numbered):
        first.setdefault(rank, i)
    if len([r for r in first if r]) < 2:
        return [(number, line) for _, number, line in numbered]
    numbered.sort(key=lambda item: first[item[0]])  # stable: each rank keeps its own order
    return [(number, line) for _, number, line in numbered]


def _continues(prev: str, line: str) -> str | None:
    """How ``line`` joins ``prev`` when it is the wrapped rest of it ('' or ' '), else None."""
    if not line or not prev:
        return None
    if FRAME_HEAD_NO_FUNC.search(prev) and line.lstrip().startswith("in "):
        return " "
    if FRAME_FUNC_CUT.search(prev) and re.fullmatch(r"\w+", line):
        return ""  # a function name cut at the terminal width: _next_ + data
    if RICH_PATH.search(prev) and re.match(r"\s*in \w", line):
        return " "
    wrapped = 70 <= len(prev) <= 100 and not prev.endswith((":", ".", "`", "```"))
    if wrapped and re.match(r"[a-z0-9(\[<'\"]", line) and not line.startswith("in "):
        return " "
    return None


def unwrap(lines: list[tuple[int, str]]) -> tuple[list[str], list[int]]:
    """Join lines broken at the terminal width; return them with their 1-based origins."""
    out: list[str] = []
    origin: list[int] = []
    for number, line in lines:
        joint = _continues(out[-1], line) if out else None
        if joint is not None:
            out[-1] = out[-1] + joint + line.lstrip()
        else:
            out.append(line)
            origin.append(number)
    return out, origin


def drop_repeats(lines: list[str], origin: list[int]) -> tuple[list[str], list[int]]:
    """The lines without those whose shape already came `REPEATS_KEPT` times (blank lines
    stay: they part paragraphs)."""
    seen: dict[str, int] = {}
    kept: list[str] = []
    kept_origin: list[int] = []
    for line, number in zip(lines, origin, strict=True):
        if line.strip():
            shape = SHAPE_RUNS.sub(r"\1", SHAPE_DIGITS.sub("0", line))
            seen[shape] = seen.get(shape, 0) + 1
            if seen[shape] > REPEATS_KEPT:
                continue
        kept.append(line)
        kept_origin.append(number)
    return kept, kept_origin


def _ignored_lines(lines: list[str]) -> frozenset[int]:
    """Lines of each "Exception ignored in" block, up to the exception that ends it."""
    ignored: set[int] = set()
    i = 0
    while i < len(lines):
        if "Exception ignored in" not in lines[i]:
            i += 1
            continue
        end = min(i + IGNORED_SPAN_LINES, len(lines))
        j = i + 1
        while j < end and not EXCEPTION_AT_START.match(lines[j]):
            if "Exception ignored in" in lines[j]:
                break
            j += 1
        stop = j + 1 if j < end and EXCEPTION_AT_START.match(lines[j]) else j
        ignored.update(range(i, stop))
        i = max(stop, i + 1)
    return frozenset(ignored)


def normalize(raw: str) -> Parsed:
    """Strip decoration, regroup ranks, unwrap, drop repeats; index frames, exceptions and
    ignored blocks."""
    raw = clean(raw).replace("\r\n", "\n").replace("\r", "\n")
    lines, origin = drop_repeats(*unwrap(deinterleave([strip_prefixes(line)
                                                       for line in raw.split("\n")])))
    frames: list[tuple[int, str]] = []
    exceptions: list[tuple[int, str]] = []
    raisers: list[tuple[int, str]] = []
    innermost: tuple[int, str] | None = None  # the last frame since the last exception
    for i, line in enumerate(lines):
        for pattern in FRAME_PATTERNS:
            frames.extend((i, f"{m['path']} in {m['func']}") for m in pattern.finditer(line))
        if frames and frames[-1][0] == i:
            innermost = frames[-1]
        for m in (*EXCEPTION.finditer(line), *EXCEPTION_LOWER.finditer(line)):
            message = (m["msg"] or "").strip()
            exceptions.append((i, f"{m['type']}: {message}" if message else m["type"]))
            if innermost is not None:
                raisers.append(innermost)
                innermost = None
    text = "\n".join(lines)
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    flat = SINGLE_BREAK.sub(" ", text)
    return Parsed(tuple(lines), tuple(origin), tuple(frames), tuple(exceptions),
                  _ignored_lines(lines), text, tuple(starts),
                  flat, flat != text, tuple(raisers))
