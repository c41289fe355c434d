"""A dataset described or laid out otherwise than its framework reads it: the data config
(YOLO's data YAML) and the folders the framework scans for images and their labels."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "dataset_config_invalid", "the dataset's config file is missing, ambiguous or lacks "
        "a key",
        (text(near(r"\bdata(?:set)?\.ya?ml\b|\bdata YAMLs?\b", r"\bmissing\b|\bmust match"
                   r"|\brequired\b|\bnot found\b", 120), 1.5, key=True),
         # a path argument given as the full file name where the loader adds the suffix
         text(r"No such file or directory: '[^'\n]*?(\.\w+(?:\.\w+)?)\1'", 3, key=True),
         # RecBole: the atomic file's header split with another separator than the config's,
         # a standard field (user_id, label) the config does not map
         text(near(r"field_type\.split\(", r"(?:too many|not enough) values to unpack", 300), 3,
              key=True),
         text(near(r"\brecbole\b", r"KeyError: '(?:user_id|item_id|label|timestamp|rating)'",
                   2000), 2.5, key=True),
         # the dataset registry or description file is not valid JSON
         text(near(r"dataset_info\.json|\bdataset\.json\b", r"Expecting (?:property name|value|"
                   r"',' delimiter|':' delimiter)|JSONDecodeError|Extra data: line", 200), 3,
              key=True),
         # MMDetection: an evaluation set given the training pipeline (it loads annotations
         # the test-mode results do not carry)
         text(near(r"KeyError: '?ann_info'?", r"prepare_test_img|\btest_mode\b", 2000), 3,
              key=True)),
        "the framework reads the dataset from a config (Ultralytics' data YAML: train/val "
        "paths, names or nc, kpt_shape for poses; NeMo's and MMDetection's data configs) "
        "and this one lacks a required key, has values that contradict each other (a class "
        "count and its names, manifests and tar files), an option the framework does not "
        "take, is not found, or several candidates are found",
        "open the YAML the command names and check train, val, names (and nc, kpt_shape) "
        "against the framework's example for the task",
        "write the missing keys (paths relative to the YAML's path: key), make names and "
        "nc agree, and pass data= the one YAML (or, for classification, the folder)",
        priority=86),
    Signature(
        "dataset_layout_mismatch", "the data is laid out otherwise than the loader reads it",
        (text(near(r"\blabels?\b", r"\bimages?\b", 80), 0.5),
         text(r"(?i)No labels found in", 2, key=True),
         # a metadata line with fewer columns than its parser indexes; a sentence opened as
         # an audio file (the columns read in another order)
         text(near(r"\bcols\[\d\]|\bcolumns\[\d\]|\bline\.split\(", r"IndexError: list index out "
                   r"of range", 300), 3, key=True),
         text(r"Error opening '[^\n/\\]{0,200}?\s[^\n/\\]{0,200}?[.!?]': ", 3, key=True),
         # a released copy in another format than the loader opens (LMDB folders)
         text(near(r"lmdb\.Error", r"No such file or directory", 200), 2, key=True)),
        "the loader reads the data in one layout and this copy has another: a released "
        "dataset published in another format than the repository's loader opens (not the "
        "LMDB folders it expects), or, in a detection framework, labels found by path: "
        "the framework finds each image's labels by its path (YOLO: the same name under a "
        "labels/ folder beside images/, found by replacing /images/ with /labels/ in the "
        "path), and these files are elsewhere, named otherwise, or the path holds no "
        "'images' part to replace; so every image counts as unlabelled, or a split folder "
        "(train/, val/) is not there, or annotation files written for an older major release "
        "(MMOCR 0.x's read by 1.x, which wants data_list and metainfo), or a metadata file "
        "whose columns are not the ones, or not in the order, its reader takes (a TTS "
        "formatter reading cols[2] of a two-column file, or handing a transcript to the "
        "audio reader)",
        "ls the path the loader opens (for YOLO: one image's folder and the labels/ folder "
        "beside it, the same file names with .txt)",
        "convert the copy to the layout the loader reads (or write a loader for the "
        "released format; the release's converter for an older one's annotations); for "
        "YOLO lay the data out as images/<split>/x.jpg with labels/<split>/x.txt, point "
        "the config at the images folders, and delete the stale *.cache files",
        priority=86, explains=("empty_dataset",)),
)
