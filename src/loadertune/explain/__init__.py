"""`loadertune explain`: name the cause of a DataLoader traceback or log, and the fix."""

from loadertune.explain.catalogue import CATALOGUE, Signature
from loadertune.explain.match import Explanation, Match, add_live_probes, explain_text

__all__ = ["CATALOGUE", "Explanation", "Match", "Signature", "add_live_probes", "explain_text"]
