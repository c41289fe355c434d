"""A dataset described or laid out otherwise than its framework reads it: the data config
(YOLO's data YAML) and the folders the framework scans for images and their labels."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "dataset_config_invalid", "the dataset's config file is missing, ambiguous or lacks "
        "a key",
        (text(near(r"\bdata(?:set)?\.ya?ml\b|\bdata YAMLs?\b", r"\bmissing\b|\bmust match"
                   r"|\brequired\b|\bnot found\b", 120), 1.5, key=True),),
        "the framework reads the dataset from a config file (Ultralytics' data YAML: "
        "train/val paths, names or nc, kpt_shape for poses) and this one lacks a required "
        "key, has a class count that contradicts its names, is not found, or several "
        "candidates are found",
        "open the YAML the command names and check train, val, names (and nc, kpt_shape) "
        "against the framework's example for the task",
        "write the missing keys (paths relative to the YAML's path: key), make names and "
        "nc agree, and pass data= the one YAML (or, for classification, the folder)",
        priority=86),
    Signature(
        "dataset_layout_mismatch", "the label files are not where the framework looks for "
        "them",
        (text(near(r"\blabels?\b", r"\bimages?\b", 80), 0.5),
         text(r"(?i)No labels found in", 2, key=True)),
        "the framework finds each image's labels by its path (YOLO: the same name under a "
        "labels/ folder beside images/, found by replacing /images/ with /labels/ in the "
        "path), and these files are elsewhere, named otherwise, or the path holds no "
        "'images' part to replace; so every image counts as unlabelled, or a split folder "
        "(train/, val/) is not there",
        "ls the folder of one image and the labels/ folder beside it: the same file names "
        "with .txt",
        "lay the data out as images/<split>/x.jpg with labels/<split>/x.txt, point the "
        "config at the images folders, and delete the stale *.cache files",
        priority=86, explains=("empty_dataset",)),
)
