"""``tokenize``: pure-Python text processing, as a tokenizer written in Python does.

Each item normalises a paragraph, splits it into words and encodes every word by greedy
longest-match against a subword vocabulary: dictionary look-ups and string slicing that hold
the GIL all the way, so only processes (workers) run them in parallel. Items are token ids
padded to ``length``.
"""

from __future__ import annotations

import torch
from torch.utils.data import Dataset

WORDS = ("data", "loader", "worker", "prefetch", "memory", "shared", "process", "tensor",
         "batch", "sample", "the", "a", "of", "to", "and", "in", "is", "for", "on", "with",
         "throughput", "latency", "fork", "spawn", "pickle", "queue", "thread", "core")


def _vocabulary() -> dict[str, int]:
    pieces: set[str] = set()
    for word in WORDS:
        for i in range(len(word)):
            for j in range(i + 1, min(len(word), i + 4) + 1):
                pieces.add(word[i:j])
    return {p: n for n, p in enumerate(sorted(pieces), start=2)}


class TokenizeDataset(Dataset):
    def __init__(self, size: int, words: int, length: int) -> None:
        self.size = size
        self.words = words
        self.length = length
        self.vocab = _vocabulary()

    def __len__(self) -> int:
        return self.size

    def text(self, index: int) -> str:
        n = len(WORDS)
        return " ".join(WORDS[(index * 31 + k * k * 7) % n].upper() if k % 9 == 0
                        else WORDS[(index * 31 + k * k * 7) % n] for k in range(self.words))

    def encode(self, word: str) -> list[int]:
        ids, i = [], 0
        while i < len(word):
            for j in range(min(len(word), i + 4), i, -1):
                piece = self.vocab.get(word[i:j])
                if piece is not None:
                    ids.append(piece)
                    i = j
                    break
            else:
                ids.append(1)  # unknown character
                i += 1
        return ids

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        ids: list[int] = []
        for word in self.text(index).lower().split():
            ids.extend(self.encode(word.strip(".,;")))
        ids = (ids + [0] * self.length)[: self.length]
        return torch.tensor(ids, dtype=torch.int64), index % 10


def tokenize(size: int = 4_000, words: int = 1_500, length: int = 256) -> TokenizeDataset:
    return TokenizeDataset(size, words, length)
