"""explain on real-world texts: public issue threads, each with its established cause.

Every file in tests/explain_corpus/ is a header (source, cause, split, why) and the text as
posted. The expected cause is the thread's diagnosis, not what the matcher says.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _lt import cli

from loadertune.explain import CATALOGUE, explain_text, normalize
from loadertune.explain.reports import SPLITS, read_entry

CORPUS = Path(__file__).parent / "explain_corpus"
FILES = sorted(CORPUS.glob("*.txt"))
HEADERS = {path: read_entry(path)[0] for path in FILES}  # read once at collection
CORPUS_CAUSES = {fields["cause"] for fields in HEADERS.values()}
# a blind batch is scored once with the frozen matcher and committed before any fix: its
# misses are recorded here (strict xfail) and removed by the commit that fixes them
RECORDED_MISSES: set[str] = {  # blind41-44, scored at f56010c, still missed
    # a worker SIGKILLed in a Docker container: the text says nothing of /dev/shm, and a kill
    # is the OOM killer's mark far more often than a full /dev/shm's (a bus error)
    "1291-raster-vision-tiny-spacenet-worker-killed-docker-shm",
    # blind45-48, scored at 9a05dfb: a worker SIGKILLed on a machine whose CPUs were too few
    # for its workers (the maintainer's answer); the text shows only the kill
    "1396-wesep-worker-killed-too-many-workers",
    # blind49-51, scored at 1e316ab: an intermittent worker exit whose memory limit came from
    # the platform's admin; an options error raised in the loader Accelerate rebuilt on resume
    # (named second, after the options clash the message states)
    "1413-nsml-worker-exited-memory-korean",
    "1441-axolotl-resume-prefetch-factor-rebuild",
    # blind54, scored at 23ec62a: two collate errors in one post (sizes that differ at batch
    # size 10, a PosixPath at batch size 1); the maintainer answered the first, the matcher
    # ranks the second's exact message higher than torch 1.3's wording of the first
    "1475-kaolin-shapenet-meshes-collate-sizes",
    # a slowdown after some iterations whose overloaded CPUs came from the reporter's
    # follow-up: it passed only through the ranker until blind55's reports moved the model
    "1477-mmaction2-training-slows-after-iterations",
    # blind55, scored at 70736b6: a worker that "exited unexpectedly" whose OOM came from the
    # reporter's follow-up; a loader "stuck for a very long time" whose per-sample glob came
    # from the maintainer
    "1486-qwen25vl-video-lora-worker-exited-oom",
    "1489-pytorch-unet-dataloader-taking-time-words-only",
    # blind57, scored at 43b6f2a: RAM that grows to an OOM, which the reporter ended with
    # fewer workers (the growth itself is named); a worker that exited with code 1 whose
    # Docker /dev/shm came from the reporter's follow-up
    "1497-yoloe-ram-oom-workers8",
    "1500-semseg-exit-code-1-docker-shm",
    # blind58, scored at 60bb6da: a spawned child's EOFError whose local pipeline functions
    # came from the maintainer; a worker's ValueError on macOS (the post is cut before the
    # error) whose rtree index, emptied by pickling, came from the fix
    "1503-speechbrain-windows-eoferror-dynamic-items",
    "1520-torchgeo-rtree-empty-after-pickle-macos",
    # blind70, scored at 822400f: a bug of streaming's release seen only through its own
    # symptom (an index download that times out on the other ranks), which reads as two
    # ranks racing to download; a rule for it would name one release of one library
    "1701-streaming-293-index-file-took-too-long-local-none",
    # blind71, scored at 6cb925c: more library bugs told by their symptom (Ray's sampler on
    # an IterableDataset, albumentations' rounding, torchaudio's FLAC from a file object)
    "1713-ray-9899-raysgd-iterable-validation-no-len",
    "1718-albumentations-862-yolo-bbox-x-max-1002",
    "1722-wenet-1818-torchaudio-flac-file-like-incomplete",
    # blind73, scored at aea3967: fastai's own regressions told by their symptom (an
    # IndexError after "Could not do one pass", batches of two sizes from its resize)
    "1732-fastai2-67-could-not-do-one-pass-predict-regression",
    "1735-fastai-1602-v1-collate-sizes-resize-no-tfms",
    # blind74, scored at 9b528e1: sd-scripts reloading its own latent cache as an image
    "1761-sd-scripts-2362-cached-latents-npz-reload",
    # blind75, scored at 9b278db (the helpers' search budget ran out in this round): a
    # slow augmentation told only as a stall, a transform missing from a renamed release,
    # library bugs (OpenPCDet, LeRobot) and a label of the wrong type for pytorchvideo
    "1774-batchgenerators-37-spatial-transform-stuck-isles",
    "1775-nnunet-2136-region-based-cpu-slow",
    "1776-batchgenerators-27-tractseg-transform-missing",
    "1786-openpcdet-347-demo-keyerror-gt-boxes",
    "1788-lerobot-2328-aggregate-latest-duration",
    "1791-pytorchvideo-161-int-label-not-a-mapping",
    # blind76-77, scored at 1cb2995: a repository's own code reading a key its data spells
    # otherwise, and a library Dataset without __iter__ iterated past its end
    "1801-whisper-finetune-113-keyerror-sentences",
    # blind78, scored at c20123d: MONAI's collate broken by one of its PRs, told by the
    # collate's symptom, and litdata asking for a TokensLoader of 1-D tensors
    "1829-monai-1798-pr-1778-broke-randzoomd-collate",
    "1834-litdata-294-tokensloader-validate-1d-tensors",
    # blind79, scored at d397274: a project calling a PyG attribute a newer release dropped
    # (told only as the AttributeError in a worker), fairseq 0.8's new assertion on blank
    # lines, and masks a preparation script had not generated (told only as a KeyError in a
    # worker)
    "1840-pretrain-gnns-1-data-cat-dim-newer-pyg",
    "1847-fairseq-1030-multiple-blank-lines-assertion-080",
    "1851-rdpn6d-2-keyerror-segmentation-masks-not-generated",
    # blind82, scored at 993da01: YOLOv5's own worker count computed as a float (named now
    # as the float num_workers the loader refuses, not as the repository's bug)
    "1880-yolov5-6701-float-num-workers",
    # blind84, scored at aed4c04: coqui TTS's tutorial config naming the formatter under
    # another key (told by the lookup's frames), and SlowFast's video warning told without
    # any word of loading
    "1890-coqui-tts-2114-config-formatter-key-name",
    "1894-uniformer-103-failed-to-meta-load-video",
    # passed at scoring only through the similar-reports ranker; rebuilt with its round's
    # RecBole config texts, the ranker puts a config cause first
    "1901-recbole-1966-save-kg-dataloader",
    # blind85, scored at 4d8ce98: torch's shared-memory message without its errno (the open-file
    # limit is named first, /dev/shm second), and a repository's own stack of a varying number of
    # objects per sample (named as samples of different sizes, not as code written for batch 1)
    "1904-maskrcnn-benchmark-103-shm-object-read-write-no-errno",
    "1908-stm-training-6-stack-objects-batch-one",
    # passed only through the similar-reports ranker; rebuilt with blind79's texts it ranks
    # a stream without a length first for lhotse's sampler (the two are close in words)
    "1737-icefall-67-single-cut-sampler-no-len",
    "1816-metatensor-499-dataset-iteration-past-end",
}
# an "unmatched:" header names a text whose established cause is not in the text at all (it
# came from an answer or another thread); it stays a recorded miss rather than a fitted rule
UNMATCHED = {path.stem: fields["unmatched"] for path, fields in HEADERS.items()
             if "unmatched" in fields}


def _entry(path: Path) -> object:
    if path.stem in RECORDED_MISSES:
        reason = "blind miss recorded before the fix"
    elif path.stem in UNMATCHED:
        reason = f"unmatched: {UNMATCHED[path.stem]}"
    else:
        return pytest.param(path, id=path.stem)
    return pytest.param(path, id=path.stem, marks=pytest.mark.xfail(strict=True, reason=reason))


ENTRIES = [_entry(path) for path in FILES]


def test_corpus_is_large_varied_and_well_formed() -> None:
    assert len(FILES) >= 60
    assert len(CORPUS_CAUSES) >= 20
    ids = {s.id for s in CATALOGUE}
    entries = [(path, *read_entry(path)) for path in FILES]
    for path, fields, body in entries:
        assert fields["source"].startswith(("https://", "http://")), path.name
        assert fields["cause"] in ids, path.name
        assert fields["why"].strip(), path.name
        assert fields["split"] in SPLITS, path.name
        assert body.strip(), path.name
    # a natural sample (blind69) holds more posts that tell only a symptom (6 of 17): the
    # bound stays tight enough that a cause told in the text is never filed as unmatched
    assert len(UNMATCHED) <= len(FILES) // 40, "unmatched texts are the exception"
    # every 4th entry collected before the matcher was written is held out; "fresh*" and
    # "blind*" entries were collected after it was frozen
    first = [(path, fields) for path, fields, _ in entries
             if fields["split"] in ("dev", "holdout")]
    for i, (path, fields) in enumerate(first, 1):
        assert fields["split"] == ("holdout" if i % 4 == 0 else "dev"), path.name


@pytest.mark.parametrize("path", ENTRIES)
def test_corpus_entry_gets_its_established_cause(path: Path) -> None:
    fields, body = read_entry(path)
    explanation = explain_text(body)
    assert explanation.known, f"{path.name}: unknown"
    got = explanation.primary.signature.id
    assert got == fields["cause"], f"{path.name}: got {explanation.ids()}"
    assert explanation.harmless == fields["cause"].startswith("harmless_")
    assert explanation.primary.evidence, "an answer names the lines it rests on"
    assert 0 < explanation.primary.confidence < 1


def test_harmless_noise_is_not_harmless_when_something_failed() -> None:
    noise = ("huggingface/tokenizers: The current process just got forked, after parallelism "
             "has already been used. Disabling parallelism to avoid deadlocks...\n")
    assert explain_text(noise).harmless
    failure = noise + ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus "
                       "error. It is possible that dataloader's workers are out of shared "
                       "memory.\n")
    explanation = explain_text(failure)
    assert explanation.primary.signature.id == "bus_error_shm"
    assert not explanation.harmless
    assert "harmless_tokenizers_fork" in explanation.ids()
    confidences = [m.confidence for m in explanation.matches]
    assert confidences == sorted(confidences, reverse=True), "never surer of a lower cause"
    alone = explain_text(failure.replace(noise, "")).primary.confidence
    assert explanation.primary.confidence < alone, "a second cause lowers the confidence"


def test_shutdown_noise_does_not_count_as_the_error_it_prints() -> None:
    block = (
        "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f>\n"
        "Traceback (most recent call last):\n"
        '  File "/x/torch/utils/data/dataloader.py", line 1324, in __del__\n'
        "    self._shutdown_workers()\n"
        '  File "/x/multiprocessing/reduction.py", line 164, in recvfds\n'
        "RuntimeError: received 0 items of ancdata\n")
    assert explain_text(block).primary.signature.id == "harmless_shutdown"
    real = "RuntimeError: received 0 items of ancdata\n" + block
    assert explain_text(real).primary.signature.id == "ancdata"


def test_dataloader_error_without_a_known_cause_falls_back_not_unknown() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "train.py", line 9, in <module>\n'
            '  File "/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", '
            "line 1329, in _next_data\n"
            "    idx, data = self._get_data()\n")
    explanation = explain_text(text)
    # the causes of the most similar reports come first, then the fallback's advice
    assert explanation.ids()[-1] == "dataloader_failure" and not explanation.by_signals
    assert all(m.similar for m in explanation.matches[:-1])
    assert "num_workers=0" in explanation.matches[-1].signature.confirm
    assert not explain_text("ZeroDivisionError: division by zero\n").known
    words = explain_text("With num_workers=4 my DataLoader gives an error, with 0 it works")
    assert words.ids()[-1] == "dataloader_failure", "an error in words is a DataLoader error"


def test_collate_names_the_shapes() -> None:
    text = ("RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] "
            "at entry 0 and [3, 200, 300] at entry 5\n")
    match = explain_text(text).primary
    assert match.signature.id == "collate_size_mismatch"
    assert "[3, 224, 224]" in match.detail and "[3, 200, 300]" in match.detail
    assert "collate_fn" in match.signature.fix and "pad" in match.signature.fix


def test_normalize_joins_lines_wrapped_at_80_columns() -> None:
    wrapped = ("RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus error. It is\n"
               "possible that dataloader's workers are out of shared memory.\n")
    assert normalize(wrapped).lines[0].endswith("It is possible that dataloader's workers "
                                                "are out of shared memory.")
    cut = ('  File "C:\\env\\Lib\\site-packages\\torch\\utils\\data\\_utils\\collate.py", '
           "line 265, in de\nfault_collate\n")
    assert normalize(cut).frames[0][1].endswith("collate.py in default_collate")
    split = ('File "/usr/lib/python3.8/multiprocessing/reduction.py", line 164,\n'
             "in recvfds\n")
    parsed = normalize(split)
    assert [f for _, f in parsed.frames] == ["/usr/lib/python3.8/multiprocessing/reduction.py"
                                             " in recvfds"]
    assert parsed.origin == (1, 3)


def test_normalize_strips_rank_timestamp_and_level_prefixes() -> None:
    text = ("[rank1]:   File \"/a/dataloader.py\", line 701, in __next__\n"
            "[default0]:RuntimeError: received 0 items of ancdata\n"
            "2024-05-01 12:00:01,123 ERROR: Unexpected bus error encountered in worker.\n"
            "> │ /a/worker.py:287 in _worker_loop │\n")
    parsed = normalize(text)
    assert parsed.lines[1] == "RuntimeError: received 0 items of ancdata"
    assert parsed.lines[2] == "Unexpected bus error encountered in worker."
    assert [f for _, f in parsed.frames] == ["/a/dataloader.py in __next__",
                                             "/a/worker.py in _worker_loop"]
    assert ("RuntimeError: received 0 items of ancdata" in
            [e for _, e in parsed.exceptions])
    assert explain_text(text).primary.signature.id == "ancdata"


def test_normalize_writes_windows_paths_with_slashes() -> None:
    line = ('  File "C:\\Users\\me\\Anaconda3\\lib\\multiprocessing\\spawn.py", line 116, '
            "in spawn_main\n")
    assert normalize(line).frames == ((0, "C:/Users/me/Anaconda3/lib/multiprocessing/spawn.py"
                                           " in spawn_main"),)
    assert "\\" not in normalize(line).lines[0]
    assert normalize("raise RuntimeError('it\\'s fine')\n").lines[0].count("\\") == 1


def test_normalize_separates_english_words_from_cjk_text() -> None:
    parsed = normalize("WindowsのJupyterでnum_workers=2にすると止まるBus error或者\n")
    assert parsed.lines[0] == "Windows の Jupyter で num_workers=2 にすると止まる Bus error 或者"
    assert re.search(r"\bwindows\b", parsed.text, re.IGNORECASE)
    assert normalize("num_workers=2 hangs\n").lines[0] == "num_workers=2 hangs"


def test_normalize_drops_what_a_long_log_repeats() -> None:
    progress = [f"Epoch {i // 100}: {i % 100}%|####  | {i}/500 [00:0{i % 10}, loss=0.{i}]"
                for i in range(2000)]
    crash = ["Traceback (most recent call last):",
             *['  File "ds.py", line 9, in __getitem__'] * 30,
             "RecursionError: maximum recursion depth exceeded"]
    parsed = normalize("\n".join([*progress, "", *crash]))
    assert len(parsed.lines) < 30
    assert parsed.lines[-1].startswith("RecursionError") and parsed.origin[-1] == 2033
    assert sum(" in __getitem__" in f for _, f in parsed.frames) == 8  # enough for a count
    explanation = explain_text("\n".join([*progress, "", *crash]))
    assert explanation.primary.signature.id == "dataset_retry_recursion"
    assert (2033, crash[-1]) in explanation.primary.evidence


def test_normalize_glosses_dataloader_words_of_cjk_posts() -> None:
    parsed = normalize("训练时DataLoader一直卡住,内存不断增加\n")
    assert "卡住 (stuck)" in parsed.text and "内存 (memory)" in parsed.text
    assert "不断增加 (grows)" in parsed.text
    assert normalize("the loader hangs").text == "the loader hangs"
    assert explain_text("训练时 DataLoader 卡住了,num_workers=4,没有报错\n").primary \
        .signature.id == "worker_hang"


def test_catalogue_is_data_with_unique_ids() -> None:
    ids = [s.id for s in CATALOGUE]
    assert len(ids) == len(set(ids))
    for s in CATALOGUE:
        assert any(sig.weight > 0 for sig in s.signals), s.id
        assert s.harmless == s.id.startswith("harmless_"), s.id
        assert s.cause and s.confirm and s.fix, s.id


def test_cli_json_has_confidence_harmless_and_stable_ids(tmp_path: Path) -> None:
    fields, body = read_entry(CORPUS / "013-silnlp-tokenizers-warning.txt")
    log = tmp_path / "issue.txt"
    log.write_text(body)
    result = cli("explain", str(log), "--json", "--no-live")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["cause"] == fields["cause"] and data["harmless"] is True
    assert 0 < data["confidence"] < 1
    first = data["causes"][0]
    assert first["id"] == data["cause"] and first["evidence"] and "confidence" in first
    text = cli("explain", str(log), "--no-live").stdout
    assert "probably harmless" in text and "confidence" in text


@pytest.mark.parametrize("text", [
    "I get the same random numbers every run even with a seed",
    "How many num_workers should I use for speed?",
    "RecursionError: maximum recursion depth exceeded in my parser",
    "the job was not killed by anything",
    "BrokenPipeError: [Errno 32] Broken pipe",
])
def test_texts_without_a_dataloader_failure_stay_unknown(text: str) -> None:
    assert explain_text(text).ids() == []


def test_a_missing_h5py_key_is_not_a_shared_handle() -> None:
    text = ('KeyError: "Unable to open object (object \'images\' doesn\'t exist)" in my h5py '
            "dataset with num_workers=0")
    # the signals do not claim it (similar reports may still list it below, to rule out)
    named = [m.signature.id for m in explain_text(text).matches if m.similar is None]
    assert "shared_file_handle" not in named
    shared = ("KeyError: 'Unable to open object (bad object header version number)' from the "
              "h5py file opened in __init__, only with num_workers=4")
    assert explain_text(shared).primary.signature.id == "shared_file_handle"


def test_normalize_regroups_interleaved_ranks() -> None:
    text = ("[rank0]: RuntimeError: An attempt has been made to start a new process\n"
            "[rank1]: Traceback (most recent call last):\n"
            "[rank0]:   before the current process has finished its bootstrapping phase.\n"
            "[rank1]:   File \"/a/torch/utils/data/dataloader.py\", line 1, in __iter__\n"
            "torchrun: rank 1 exited\n")
    parsed = normalize(text)
    assert parsed.origin[:5] == (1, 3, 2, 4, 5)
    assert parsed.lines[1].strip().startswith("before the current process")
    match = explain_text(text).primary
    assert match.signature.id == "spawn_bootstrap"
    assert match.score >= 4, "the whole message is found once the rank's lines are together"
    assert [n for n, _ in match.evidence] == [1, 3]  # original line numbers of rank 0


def test_fallback_is_a_direction_not_a_confident_diagnosis() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/v/torch/utils/data/dataloader.py", line 1329, in _next_data\n'
            "RuntimeError: something went wrong in DataLoader worker process 0\n")
    matches = explain_text(text).matches  # the causes of similar reports, then the fallback
    assert matches[-1].signature.id == "dataloader_failure"
    assert all(m.confidence <= 0.4 for m in matches)
