"""The installed releases: a library's own bug, or two libraries at versions that do not fit."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

# the library's own code failing on its own names: a name it never defined, a private
# attribute a release renamed (the frame above the error is in an installed package)
OWN_NAME_FAILS = (r"File \"[^\"\n]*(?:site|dist)-packages/(?!torch/)(?P<library>\w+)[^\"\n]*\", "
                  r"line \d+, in \w+"
                  r"\n(?:[^\n]*\n)?[ \t]*(?:NameError: name '\w+' is not defined"
                  r"|AttributeError: '\w+' object has no attribute '_\w+')")
# told in words: it broke with a release, a PR, a commit
NEW_RELEASE = (r"\b(?:latest|newest|new|recent|last)\s+(?:release|version|update|commit)\b"
               r"|\bPR ?#\d+\b|\bdowngrad\w*\b"
               r"|\bsince (?:yesterday|the (?:latest |last |recent )?(?:update|upgrade|release))\b"
               r"|\b(?:that|the) PR\b|/commit/[0-9a-f]{7,40}\b|\bcommit [0-9a-f]{7,40}\b")
BROKE = r"\bbr(?:oke|oken|eaks?)\b|\bcrash\w*|\bregression\b"

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "library_bug", "a bug in the installed release of a library around the loader",
        (text(OWN_NAME_FAILS, 2.5, key=True),
         text(near(NEW_RELEASE, BROKE, 200), 1.5, key=True),
         # the previous release of the library runs the same command
         text(r"(?is)\bdowngrad\w*\b[^.\n]{0,60}\b(?:version|release|v?\d+\.\d+)\b.{0,100}?"
              r"(?:\bsame (?:command|code|script)\b[^.\n]{0,20}\bworks?\b|\bit works\b)", 2,
              key=True),
         text(r"/(?:commit|pull)/[0-9a-f]{7,40}\b|/pull/\d+\b|\bPR #?\d+\b", 0.5),
         # a name used before it is set: a bug in the code that raised it, not in the data
         text(r"local variable '\w+' referenced before assignment|cannot access local "
              r"variable '\w+' where it is not associated with a value", 1.5, key=True),
         # an integer overflow in a library's own index arithmetic
         text(near(r"RuntimeWarning: overflow encountered in \w+", r"(?:site|dist)-packages/|"
                   r"\bmegatron/|indexed_dataset", 300), 2.5, key=True),
         # a project's script that uses a loader name it never imported
         text(r"NameError: name '(?:\w*[Dd]ata_?[Ll]oader\w*|\w*Dataset\w*|\w+Sampler)' is not "
              r"defined", 2, key=True),
         text(near(r"\b(?:add|missing|forgot(?:ten)?)\b[^.\n]{0,30}\b(?:line|import)s?\b",
                   r"(?:^|\n)[ \t]*from torch[\w.]* import \w+[ \t]*(?:\n|$)",
                   200), 2, key=True),
         # a library's wrapper of the loader lacks what the library's own script reads from it
         text(r"'(?!DataLoader')\w+Loader' object has no attribute '(?:dataset|sampler|"
              r"batch_size|filenames)'", 2.5, key=True),
         # the loader handed to a function where the project's own code expects the model
         text(r"'DataLoader' object has no attribute '(?:eval|train|parameters|forward|cuda|"
              r"zero_grad|state_dict)'", 2.5, key=True)),
        "the failing line is the library's own (torch_xla, Accelerate, DeepSpeed, a toolkit's "
        "data loading): a release renamed an attribute without its users, left a name "
        "undefined, or assumed your data has the layout of its standard dataset; nothing in "
        "your code or data is wrong",
        "pip show the library the last frames name, and look for the message on its issue "
        "tracker; the previous release does not fail",
        "pin the previous release (pip install 'lib==x.y.z') until the patch release, or "
        "install the fix from the library's main branch",
        detail="raised inside {library}", priority=60, min_score=1.5,
        explains=("worker_exception",)),
    Signature(
        "dependency_version_mismatch", "two libraries in the data path at versions that do not "
        "fit",
        (text(r"load\(\) got an unexpected keyword argument 'backend'", 4, key=True),
         # a library's loader (or stand-in) lacking an attribute a newer torch's iterator reads
         text(r"AttributeError: '\w+' object has no attribute '(?:pin_memory_device|"
              r"persistent_workers|in_order|_dataset_kind|_IterableDataset_len_called|"
              r"_auto_collation|_index_sampler|multiprocessing_context|prefetch_factor)'", 3.5,
              key=True),
         # a library built for another torch imports a name torch's data modules moved
         text(r"cannot import name '\w+' from '(?:torch|torchvision|torchaudio|torchtext)\.[\w.]+'",
              3.5, key=True),
         # a project written for another release of a data library than the installed one
         text(r"cannot import name '\w+' from '(?:timm|pytorch_lightning|lightning|transformers|"
              r"datasets|accelerate|torchdata|mmcv|mmdet|mmengine|detectron2|monai|dgl|"
              r"torch_geometric)(?:\.[\w.]+)?'"
              r"|module '(?:pytorch_lightning|lightning|torchdata|timm|datasets|monai|dgl|"
              r"torch_geometric)(?:\.\w+)*' has no attribute '\w+'"
              r"|No module named '(?:torch_geometric|dgl|pytorch_lightning|lightning|timm|"
              r"torchdata|monai)\.\w[\w.]*", 3, key=True),
         # an older datasets with a newer fsspec; an old datasets fetching its builders online
         text(r"Loading a dataset cached in a LocalFileSystem is not supported", 4, key=True),
         text(r"Couldn'?t reach https://raw\.githubusercontent\.com/huggingface/datasets/"
              r"[\d.]+/", 4, key=True),
         text(near(r"got an unexpected keyword argument '\w+'", r"\bversions?\b|\bupgrad\w*|"
                   r"\bupdat\w*|\bolder\b|\bnewer\b", 300), 1.5, key=True),
         # a dataset written for an older release of the training loop around it
         text(near(r"(?:not enough|too many) values to unpack \(expected \d+, got \d+\)",
                   r"\b(?:has |have )?(?:changed|updated)\b|\bnew (?:version|release|parameter)|"
                   r"\bolder (?:version|release)\b|\baddition of\b", 500), 2.5, key=True),
         # a wrapper of PyG's InMemoryDataset written before 2.0 moved its data and slices
         text(near(r"self\.data\[key\], self\.slices\[key\]|\bself\.slices\[",
                   r"'NoneType' object is not subscriptable", 300), 3, key=True),
         # told in words: the installed release is not the one the project requires
         text(near(r"\bversions?\b", r"\b(?:does not|doesn'?t|do not|don'?t) match (?:the |its "
                   r"|our )?requirements\b", 120), 2.5, key=True),
         # told in words: a release of one library no longer fits the code of another
         text(near(NEW_RELEASE, r"\bbackwards?[- ]incompatib\w*|\bnot backwards?[- ]compatible\b",
                   200), 2, key=True),
         # webdataset 0.2.96's tar_file_expander ends with {} (eof_value), which the grouping
         # code copied into OpenCLIP and others reads as a sample
         text(near(r"\bgroup_by_keys\w*|\btar_file_expander\b|\beof_value\b",
                   r"KeyError: '(?:fname|__key__)'", 600), 3.5, key=True),
         # a library's own last frame calling another library with a keyword it lacks
         text(r"File \"[^\"\n]*(?:site|dist)-packages/(?!torch/)\w+[^\"\n]*\", line \d+, in \w+"
              r"\n(?:[^\n]*\n)?[ \t]*TypeError: [\w.]+\(\) got an unexpected keyword argument",
              2.5, key=True),
         # triton kernels of this torch that the installed compiler or headers cannot build
         text(near(r"/tmp/tmp\w+/main\.c\b|\btriton\b", r"loop initial declarations are only "
                   r"allowed in C99 mode|pyconfig\.h|Python\.h: No such file", 400), 3, key=True),
         # a library's DataLoader that became an abstract base (allennlp 1.1)
         text(r"\bDataLoader\(\) takes no arguments", 3, key=True)),
        "two libraries in the data path are at versions that do not fit: a toolkit calls a "
        "dependency with an argument the installed release lacks (SpeechBrain passes "
        "backend= to torchaudio.load, new in 2.1), an older datasets meets a newer fsspec "
        "('Loading a dataset cached in a LocalFileSystem is not supported'), or a datasets "
        "before 1.3 fetches its packaged builders (text, json, audiofolder) from GitHub and "
        "fails offline, webdataset 0.2.96 ends each tar with {} where OpenCLIP's copied "
        "grouping code expects None (KeyError: 'fname'), or allennlp 1.1 made its DataLoader "
        "an abstract base (PyTorchDataLoader takes the arguments)",
        "pip show the libraries the message names and compare with the versions the "
        "toolkit (or datasets' own requirements) expects",
        "upgrade the older one (pip install -U datasets, torchaudio ...), or pin the other "
        "to a release made for it",
        priority=84, explains=("worker_exception", "worker_exited")),
    Signature(
        "pillow_array_regression", "Pillow 8.3.0 broke turning an image into an array",
        (text(r"__array__\(\) takes 1 positional argument but 2 were given", 4, key=True),
         text(r"(?i)\bpillow\W{0,3}8\.3\.0\b|\bPIL\W{0,3}8\.3\.0\b", 2, key=True)),
        "Pillow 8.3.0 changed Image.__array__ so that np.array(img, dtype) (which "
        "torchvision's ToTensor calls) raises; every sample that passes through ToTensor "
        "fails, with or without workers",
        "python -c \"import PIL; print(PIL.__version__)\": 8.3.0",
        "install another Pillow (pip install 'pillow!=8.3.0'; 8.3.1 fixed it)",
        priority=88, explains=("worker_exception",)),
)
