"""`loadertune explain`: the cause of a DataLoader traceback, log or issue text, and the fix."""

from loadertune.explain.catalogue import CATALOGUE, by_id
from loadertune.explain.match import Explanation, Match, add_live_probes, explain_text
from loadertune.explain.normalize import Parsed, normalize
from loadertune.explain.signature import Signal, Signature

__all__ = ["CATALOGUE", "Explanation", "Match", "Parsed", "Signal", "Signature",
           "add_live_probes", "by_id", "explain_text", "normalize"]
