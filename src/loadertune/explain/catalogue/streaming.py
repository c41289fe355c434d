"""Streaming and DataPipe libraries (webdataset, MosaicML streaming, torchdata): their
shard formats, local caches, shuffle buffers and who turns their shuffling on."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING
from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "shuffle_buffer_memory", "a streaming shuffle buffer fills the host's memory",
        (text(near(r"\bshuffl\w*[ _]?buffer\w*|\b(?:shuffle_)?buffer_size\b|\bshuffle_size\b"
                   r"|\.shuffle\(\s*(?:buffer_size\s*=\s*)?\d|\bshuffle\b[^.\n]{0,40}"
                   r"\b(?:preload\w*|buffer\w*)\b", r"\b(?:memory|RAM)\b|\bOOM\b|\bleak\w*", 400),
              3, key=True),
         text(r"(?i)\bRLDS\b|tf\.data|webdataset|\bwds\.|IterableDataset|streaming", 0.5)),
        "a streaming loader shuffles through a buffer of samples it keeps in RAM (webdataset "
        ".shuffle(N), HF IterableDataset.shuffle(buffer_size=...), tf.data / RLDS "
        "shuffle_buffer_size), one buffer per worker or rank: memory climbs until the buffers "
        "are full, often for hours, which looks like a leak and can end out of memory",
        "memory that levels off after buffer_size x workers x ranks samples; a run with a "
        "10x smaller buffer stays 10x lower",
        "a smaller shuffle buffer (shuffle shards as well, so the order stays random), fewer "
        "workers or ranks holding one, or a map-style format (shards on disk, a random "
        "sampler) that needs no buffer",
        priority=75, context=ABOUT_LOADING, explains=("copy_on_read_growth",
                                                       "worker_oom_killed")),
    Signature(
        "wds_duplicate_keys", "two members of a webdataset shard share a sample key",
        (text(r"duplicate file name in tar file", 4, key=True),
         text(r"(?i)\bwebdataset\b|\bwds\.|tariterators\.py|group_by_keys", 0.5)),
        "webdataset groups consecutive tar members into one sample by key (the file name up "
        "to its first dot); a key seen again with the same extension is refused: the shards "
        "were written with names that repeat (a writer that reuses names, files of several "
        "folders or shards with one basename, dots inside the base name that cut the key "
        "short)",
        "tar tf shard.tar | sort | uniq -d (names that repeat), and look for dots before "
        "the extension",
        "write the shards with one unique __key__ per sample (wds.ShardWriter), without dots "
        "in the base name; rewrite the shards that repeat",
        priority=85, explains=("worker_exception",)),
    Signature(
        "streaming_local_dir_reuse", "two streaming datasets share one local cache directory",
        (text(r"Reused local directory", 4, key=True),
         # told in words: parallel runs over one cache, fixed by a directory per run
         text(near(r"\b(?:cach\w*|local) (?:dir\w*|folder)\b", r"\b(?:each|every|per|another) "
                   r"(?:run|job|model)\b|\bin parallel\b|\b(?:multiple|several|two|parallel) "
                   r"(?:runs|jobs|models|trainings)\b", 300), 3, key=True),
         text(r"(?i)\bStreamingDataset\b|mosaicml|\blitdata\b|\blocal=", 0.5)),
        "streaming libraries keep each dataset's shards and state (MosaicML: shared memory "
        "and locks; litdata: cache files and locks) in its local cache directory; MosaicML "
        "refuses a directory another StreamingDataset (in this job, or a job still running "
        "or killed on this machine) already uses, and runs that share one litdata cache "
        "block on each other's files",
        "list the local= of every StreamingDataset the job builds, and the jobs still "
        "running on the machine",
        "give each dataset and each concurrent job its own local directory; after a killed "
        "run, streaming.base.util.clean_stale_shared_memory(); with remote=None a release "
        "that allows read-only reuse (streaming PR #406)",
        priority=85, explains=("worker_exception",)),
    Signature(
        "datapipe_shuffle_control", "the DataLoader decides whether a DataPipe shuffles",
        (text(near(r"\bShuffler\w*|set_shuffle_settings|\.shuffle\(\)",
                   r"\bshuffle\s*=\s*(?:False|True)\b[^.\n]{0,80}\b(?:DataLoader|data ?loader)"
                   r"|\b(?:DataLoader|data ?loader)\b[^.\n]{0,80}\bshuffle\s*="
                   r"|\bshuffl\w*[^.\n]{0,60}\boverrid\w*|\boverrid\w*[^.\n]{0,60}\bshuffl\w*",
                   400), 3, key=True),
         text(near(r"\bdata ?pipes?\b|\.shuffle\(\)", r"\bsame (?:result|order|value)s?\b"
                   r"[^.\n]{0,40}\b(?:across|every|each) (?:different )?epochs?\b", 300), 3,
              key=True)),
        "a DataPipe's Shuffler does not decide alone: DataLoader(shuffle=...) turns every "
        "Shuffler in the graph on or off (False, the default, turns it off), and the "
        "DataLoader also reseeds it each epoch, so a DataPipe shuffled outside a DataLoader "
        "(or a MapDataPipe's shuffle in older releases) repeats one order every epoch",
        "compare the first samples of two epochs, and check the DataLoader's shuffle "
        "argument",
        "pass shuffle=True to the DataLoader (DataLoader2: the ReadingService's seeding); "
        "iterate the DataPipe through a DataLoader, or call set_seed on it each epoch",
        priority=75, context=ABOUT_LOADING),
    Signature(
        "lazy_manifest_needs_eager", "a lazy (streamed) manifest was used as if it were in memory",
        (text(r"Cannot \w+ (?:\w+ )?(?:of|in|on) (?:cuts|items|samples) in a lazy \w+", 4,
              key=True),
         text(near(r"\blazy (?:CutSet|manifest|dataset)\b", r"\bnot supported\b|\bcannot\b"
                   r"|\bcan'?t\b|to_eager", 200), 2.5, key=True)),
        "a lazily opened manifest (lhotse's CutSet from a .jsonl.gz, and what .mix(), "
        ".filter() or .map() return on one) reads its items as it is iterated; operations "
        "that need all of them at once (loading all audio, len, random access, a split) "
        "refuse it",
        "type(cuts) and cuts.is_lazy",
        "call .to_eager() first when it fits in memory, or do the work per item while "
        "iterating (in the dataset's __getitem__ or a sampler over the lazy set)",
        priority=80),
)
