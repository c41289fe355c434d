"""What torch refuses while a dataset, a split or a sampler is built, before any batch: an
empty dataset, split lengths that do not fit, a missing __getitem__, sampler arguments, a
DistributedSampler without a process group."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING, HANGS
from loadertune.explain.signature import Signature, exc, frame, near, raised_in, text

# RandomSampler's refusal (old releases spelled it "integeral")
NUM_SAMPLES = r"num_samples should be a positive integ\w* value, but got num_samples\s*=\s*"
# a data path that is not there, as Python, pandas and most readers say it
NOT_FOUND = (r"FileNotFoundError|No such file or directory|\bdoes not exist\b|"
             r"\bcan ?not (?:be )?f(?:ou|i)nd\b")
NO_GROUP = r"Default process group (?:has not been|is not) initiali[sz]ed"

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "empty_dataset", "the dataset has no items",
        (text(NUM_SAMPLES + r"0\b", 4, key=True),
         # a ConcatDataset of the datasets found on disk, when none was found
         text(r"datasets should not be an empty iterable", 3, key=True),
         # trainers' own words for a data folder with nothing where they look
         text(r"No data found\. Please verify arguments|Instance (?:images|data) root "
              r"doesn'?t exists?", 4, key=True),
         # torchvision's folder datasets finding no class folder or no image in one
         text(r"Dataset '[^'\n]+' images not found", 4, key=True),
         text(r"Found 0 (?:files|images) in subfolders of|Couldn'?t find any class folder in"
              r"|Found no valid file for the classes", 4, key=True),
         # Lightning: no batch on any rank; Hugging Face datasets: index 0 of 0 rows
         text(r"Total length of `?\w+`? across ranks is zero", 3.5, key=True),
         text(r"Invalid key: 0 is out of bounds for size 0", 3.5, key=True),
         # an empty numpy array of file names indexed; torchvision failing to word "Found 0"
         # (extensions None beside is_valid_file)
         text(r"index 0 is out of bounds for axis 0 with size 0", 2.5, key=True),
         text(near(r"can only join an iterable", r"ImageFolder|DatasetFolder|is_valid_file",
                   1500), 3.5, key=True),
         # litdata: an input_dir without the index its optimize step writes
         text(r"doesn'?t contain any index\.json file", 3.5, key=True),
         # told in words: the dataset's length is 0, or it found no file
         text(r"(?i)\blen\(\s*(?:self\.)?\w*(?:dataset|data|ds|files|images|paths|samples)\w*"
              r"\s*\)\s*(?:==|is|was|returns?|gives?|=)\s*0\b", 2.5, key=True),
         text(r"(?i)\b(?:found|finds?|finding|there (?:are|were)|contains?|loaded|read)\s+"
              r"(?:no|0|zero)\s+(?:\w+\s+)?(?:files?|images?|samples?|items?|videos?|records?"
              r"|datasets?)\b", 2, key=True)),
        "the dataset has no items (len(dataset) == 0), or some of its classes have none: its "
        "path points at another folder, its glob or extension matches no file (*.jpg against "
        ".png files, .JPEG in capitals), the folder layout it expects (ImageFolder: one "
        "sub-folder per class) is missing, or a filter dropped every sample; shuffle=True's "
        "RandomSampler then refuses num_samples=0, a ConcatDataset of the datasets found gets "
        "an empty list, and an unshuffled loader yields no batch at all",
        "print(len(dataset)) right after building it, with the folder and pattern it searched "
        "(glob.glob(os.path.join(root, '*.jpg')))",
        "point the dataset at the folder that holds the files and match their real extension, "
        "case and layout; fail early when nothing is found (assert len(dataset) > 0, "
        "f'no files under {root}')",
        priority=85, explains=("worker_exception", "loader_exhausted")),
    Signature(
        "random_split_lengths", "random_split got lengths that do not fit the dataset",
        (text(r"Sum of input lengths does not equal the length of the input dataset", 4,
              key=True),
         text(r"Fraction at index \d+ is not between 0 and 1", 4, key=True),
         text(r"Length of split at index \d+ is 0", 3.5, key=True),
         # a split helper that leaves one part empty
         text(near(r"\b\w*split\w*", r"\bempty (?:\w+\s+)?(?:ConcatDataset|dataset|split|part"
                   r"|list)\b", 200), 3.5, key=True),
         text(r"(?i)\brandom_split\b", 1)),
        "random_split was given lengths that do not fit the dataset: absolute lengths that do "
        "not add up to len(dataset) (sizes written for another dataset or split, or rounded: "
        "int(0.8 * n) + int(0.2 * n) < n), fractions on torch < 1.13 (which takes only "
        "absolute lengths), or fractions that floor a part of a small dataset to 0 items",
        "print(len(dataset), lengths) just before random_split",
        "pass fractions that sum to 1 (torch >= 1.13: random_split(ds, [0.8, 0.2])) or make "
        "the last length the rest (n_val = int(0.2 * n); [n - n_val, n_val]); give every "
        "part of a tiny dataset at least one item",
        priority=86, explains=("worker_exception", "empty_dataset")),
    Signature(
        "dataset_missing_getitem", "the dataset class has no __getitem__ the loader can call",
        (text(r"Subclasses of Dataset should implement __getitem__", 4, key=True),
         # Dataset's placeholder raised: the class never defined its own
         raised_in(r"torch/utils/data/dataset\.py in __getitem__$", 3, key=True),
         # a misspelt method (def __getitem(, def __get_item__()
         text(r"\bdef (?:__getitem|__get_item__|_getitem__)\s*\(", 3, key=True),
         # a stream (__iter__) in a class that is not an IterableDataset
         text(near(r"__iter__", r"(?:subclass\w*|inherit\w*|deriv\w*)[^\n]{0,40}?"
                   r"IterableDataset", 300), 2.5, key=True),
         exc(r"^NotImplementedError\b", 1)),
        "the DataLoader treats a torch.utils.data.Dataset subclass as map-style and asks it for "
        "dataset[i]; the class has no __getitem__ of its own, so Dataset's placeholder raises "
        "NotImplementedError: the method is misspelt (__getitem, __get_item__) or indented "
        "outside the class, or the dataset streams with __iter__ but subclasses Dataset "
        "instead of IterableDataset",
        "`type(dataset).__getitem__ is torch.utils.data.Dataset.__getitem__` is True: the "
        "class never defined it",
        "define `def __getitem__(self, index)` (spelt so, inside the class); a dataset that "
        "streams with __iter__ must subclass torch.utils.data.IterableDataset",
        priority=88, explains=("worker_exception",)),
    Signature(
        "invalid_sampler_args", "a sampler or batch sampler refuses its arguments",
        (text(r"batch_size should be a positive integer value, but got batch_size\s*=", 4,
              key=True),
         text(r"(?:replacement|drop_last) should be a boolean value", 4, key=True),
         text(r"weights should be a 1d sequence", 4, key=True),
         text(r"Invalid rank -?\d+, rank should be in the interval", 4, key=True),
         text(NUM_SAMPLES + r"(?!0\b)", 3, key=True)),
        "a sampler got a value it refuses: a batch size of 0 (BatchSampler, so DataLoader's "
        "batch_size), most often a global batch divided by the number of GPUs, accumulation "
        "steps or subdivisions that rounds down to 0; replacement or drop_last that is not a "
        "bool; WeightedRandomSampler weights that are not 1-D; a DistributedSampler rank "
        "outside 0..num_replicas-1",
        "print the value the message names where the sampler or loader is built (batch_size "
        "after the division)",
        "make the global batch size a multiple of (and at least) GPUs x accumulation steps, or "
        "use max(1, batch_size // world_size); pass bools; one weight per sample, 1-D "
        "(weights.view(-1)); take rank and num_replicas from the process group",
        priority=86, explains=("worker_exception",)),
    Signature(
        "distributed_not_initialized", "a DistributedSampler was built where no process group "
        "exists",
        (text(near(NO_GROUP, r"sampler|torch/utils/data/distributed\.py", 3000), 4, key=True),
         text(NO_GROUP, 2, key=True),
         text(r"Requires distributed package to be available", 3, key=True),
         # MosaicML's StreamingDataset names its shared memory by rank: built before the
         # launcher set RANK/WORLD_SIZE, every rank takes the same names
         text(near(r"FileExistsError: \[Errno 17\] File exists: '/\d{6}_\w+'",
                   r"StreamingDataset|streaming/base", 6000), 3.5, key=True),
         text(near(r"StreamingDataset", r"\b(?:RANK|WORLD_SIZE|LOCAL_WORLD_SIZE)\b", 2000), 1.5),
         frame(r"torch/utils/data/distributed\.py in __init__$", 1.5),
         text(r"(?i)torch\.distributed\.launch|\btorchrun\b|init_process_group", 0.5)),
        "DistributedSampler asks torch.distributed for the world size and this process's rank "
        "when it is built; with no process group yet, because the script was started with "
        "plain python instead of torchrun (or the launcher it expects), or the sampler was "
        "built before init_process_group (Lightning creates the group inside fit, after a "
        "loader built earlier), it raises; 'Requires distributed package' means this torch "
        "build has no torch.distributed at all. A streaming dataset that reads RANK and "
        "WORLD_SIZE when built (MosaicML's StreamingDataset) and is built before the launcher "
        "sets them takes the same shared-memory names on every rank (FileExistsError: "
        "'/000000_locals')",
        "print(torch.distributed.is_available(), torch.distributed.is_initialized()) just "
        "before the sampler is built",
        "start with torchrun --nproc_per_node=N script.py (or the project's launcher) and call "
        "init_process_group before building the sampler; in Lightning build loaders in the "
        "*_dataloader hooks and let the Trainer add the DistributedSampler (or pass "
        "num_replicas= and rank=); in one process use a plain sampler; build streaming "
        "datasets in the setup hook, after the launcher started the ranks",
        priority=86, explains=("worker_exception", "framework_rebuilds_loader")),
    Signature(
        "distributed_sampler_padding_bug", "torch < 1.8's DistributedSampler fails on a dataset "
        "smaller than half the ranks",
        (text(r"assert len\(indices\) == self\.total_size", 3, key=True),
         text(near(r"DistributedSampler", r"len\(dataset\)\s*\*\s*2\s*<|fewer (?:samples|items"
                   r"|examples) than|smaller than (?:the )?(?:number of )?(?:gpus|replicas|ranks"
                   r"|processes)", 400), 2.5, key=True),
         frame(r"torch/utils/data/distributed\.py in __iter__$", 1)),
        "before torch 1.8 DistributedSampler padded its index list by repeating it at most "
        "once, so a dataset with fewer than half as many items as ranks (len(dataset) * 2 < "
        "num_replicas: a tiny validation set on many GPUs) came out short and failed "
        "`assert len(indices) == self.total_size`",
        "print(len(dataset), torch.distributed.get_world_size(), torch.__version__)",
        "upgrade torch (fixed in 1.8), or give every rank at least one item (a larger "
        "evaluation set, or fewer processes for evaluation)",
        priority=87, explains=("worker_exception", "sampler_set_epoch_missing")),
    Signature(
        "invalid_dataset_args", "a dataset wrapper refuses the datasets or tensors it is given",
        (text(r"Size mismatch between (?:tensors|datasets)", 4, key=True),
         # skorch's check of the arrays or dicts it wraps
         text(r"Dataset does not have consistent lengths", 4, key=True),
         text(r"ConcatDataset does not support IterableDataset|ChainDataset only supports "
              r"IterableDataset", 4, key=True),
         raised_in(r"torch/utils/data/dataset\.py in __init__$", 1)),
        "a dataset wrapper was built from parts it refuses: TensorDataset (or StackDataset) "
        "tensors or datasets whose first dimensions differ (features and labels of different "
        "lengths), ConcatDataset given an IterableDataset (it indexes its parts), or "
        "ChainDataset given a map-style dataset (it iterates its parts)",
        "print the first dimension (len) of each part just before the wrapper is built",
        "give TensorDataset tensors with one row per sample each (the same len); concatenate "
        "streams with ChainDataset and map-style datasets with ConcatDataset",
        priority=86, explains=("worker_exception",)),
    Signature(
        "dataset_not_downloaded", "the data the dataset reads was never put in place",
        (text(r"Dataset not found(?: or corrupted)?\.? ?You can use download=True to download it",
              4, key=True),
         # a data file or folder missing, and the user's (or an answer's) word for why
         text(near(NOT_FOUND, r"\b(?:forg[eo]t|didn'?t|did not|haven'?t|not) (?:to )?(?:pre-?"
                   r"process|prepare|download|extract|generate|convert)\w*\b|\bprepar\w* "
                   r"the (?:data|dataset)\b|\bDatasets? Prepar\w*|\b(?:data|files?)\b[^.\n]"
                   r"{0,30}\bnot (?:present|included|shipped|part of)\b", 1500), 3, key=True),
         # the missing path is a data folder or list the repository's preparation writes
         # (one missing image or clip is a sample's own problem)
         text(near(NOT_FOUND, r"[/\\'](?:datasets?|data|anno\w*|train|songs?|features?)[/\\]"
                   r"[^\s'\"]*(?<!\.jpg)(?<!\.jpeg)(?<!\.png)(?<!\.wav)(?<!\.mp4)['\"]", 120),
              1.5, key=True),
         # only some files of a download missing: fetched again, the same file is missing
         text(near(r"\bre-?download\w*", r"\bsame error\b|\bwc -l\b", 300), 2, key=True),
         text(r"(?i)\bdownload\s*=\s*(?:True|False)\b", 0.5)),
        "the files the dataset reads were never put where it looks: a torchvision class built "
        "with download=False (the default) and nothing under root, a repository's data "
        "preparation or preprocessing step not run (the lists, features or converted folders "
        "it writes are missing), data that must be fetched separately (a challenge's, a "
        "licence-gated set), or a download left incomplete (some of the files an annotation "
        "list names are missing), or the files put under another root (a relative path run "
        "from another folder)",
        "ls the path the error names, and count the files against the dataset's annotation "
        "list or the repository's data-preparation instructions",
        "run the repository's data preparation (download, extract, preprocess) as its README "
        "says, or pass download=True once; re-fetch an incomplete set as its archive, and "
        "give root as an absolute path",
        priority=86, explains=("worker_exception",)),
    Signature(
        "dataset_download_refused", "the server a dataset class downloads from refuses it",
        (text(near(r"HTTP Error (?:403|404|410|429|503)|\b403\b:? Forbidden|"
                   r"\b(?:403|404|503) error\b|\burlopen error\b",
                   r"\bdownload\w*|datasets[/\\]\w+\.py|\bMNIST\b|\bCIFAR", 1500), 3,
              key=True),),
        "a dataset class with download=True fetches its archives from the authors' server "
        "(MNIST from yann.lecun.com, others from university hosts or Google Drive), and the "
        "server answers 403/404/503: the files moved, a bot protection or a quota refuses "
        "scripted downloads, or the host is down; nothing on this machine is wrong",
        "open the URL in the traceback in a browser or with curl -I",
        "upgrade torchvision (newer releases try mirrors), or fetch the archives by hand "
        "(from a mirror) into root and build the dataset with download=False",
        priority=86, explains=("dataset_not_downloaded",)),
    Signature(
        "uneven_batches_per_rank", "the ranks' loaders yield different numbers of batches",
        (text(r"(?i)\b(?:ranks?|trainers?|GPUs?|processes|nodes|devices)\b[^.\n]{0,40}"
              r"\b(?:different|uneven|unequal) (?:numbers?|amounts?) of (?:batches|steps|"
              r"iterations)\b", 3, key=True),
         # the same in a distributed run's words (Horovod calls its ranks workers)
         text(near(r"\b(?:workers|ranks?|GPUs?|trainers?|nodes)\b[^.\n]{0,40}\b(?:different|"
                   r"uneven|unequal) (?:numbers?|amounts?) of (?:batches|steps|(?:training )?"
                   r"samples)\b|\buneven\w* (?:distribution|split\w*|shard\w*)\b[^.\n]{0,30}"
                   r"\b(?:data|dataset|samples)\b", r"horovod|\bDDP\b|distributed|multi-?(?:gpu|"
                   r"node)|NCCL|\bgloo\b|torchrun|\bGPUs\b", 500), 3, key=True),
         text(near(HANGS + r"|NCCL\w* (?:timeout|watchdog)|\btimed? ?out\b",
                   r"\buneven (?:inputs|batches|data|shards)\b|\b(?:data|loader|validation|"
                   r"eval\w*)[^.\n]{0,30}\bshard\w*", 200), 2, key=True),
         text(r"(?i)\bJoin\(|\bjoin\(\)|\bdrop_last\b|\bDistributedSampler\b", 0.5)),
        "every step of a distributed run is a collective (DDP's gradient all-reduce, FSDP's "
        "gathers, a metric's sync): when one rank's loader runs out of batches first (its "
        "shard of an IterableDataset is shorter, a filter or collate dropped samples, the "
        "validation split is sharded unevenly), the ranks still holding data wait for it "
        "at the next collective until the NCCL timeout, at the end of an epoch or in "
        "evaluation",
        "print len(loader) (or count the batches) on every rank: they differ",
        "give every rank the same number of batches: DistributedSampler (drop_last=True "
        "or its padding), pad or truncate the shards, stop all ranks at the shortest "
        "(a fixed number of steps, torch.distributed.algorithms.Join for DDP)",
        priority=80, context=ABOUT_LOADING, explains=("worker_hang",)),
    Signature(
        "distributed_eval_padding", "DistributedSampler repeats samples to even out the ranks",
        (text(r"(?i)add(?:s|ing)? extra samples to make it evenly divisible", 4, key=True),
         text(near(r"DistributedSampler", r"\bpad(?:s|ding|ded)?\b|\bduplicat\w*|\brepeat\w*"
                   r"|evenly divisible", 400), 2, key=True),
         text(r"(?i)\b(?:validation|eval\w*|test|accuracy|metrics?)\b[^.\n]{0,80}\b(?:differ\w*"
              r"|different|wrong|incorrect)\b[^.\n]{0,60}\b(?:number of )?(?:processes|gpus|"
              r"ranks)\b", 2, key=True)),
        "DistributedSampler gives every rank the same number of samples by repeating some "
        "when the dataset does not divide evenly (and drop_last=False): a metric gathered "
        "over all ranks counts those samples twice, so validation results change with the "
        "number of processes",
        "len(dataset) % world_size != 0, and len(sampler) * world_size > len(dataset)",
        "evaluate on one rank, or drop the padded duplicates when gathering (torchmetrics "
        "and Lightning's distributed evaluation do), or use a sampler without padding for "
        "evaluation (torch's own only drops with drop_last=True)",
        priority=84),
    Signature(
        "random_split_per_rank", "each rank draws its own random split",
        (text(near(r"random_split|random split\w*|\bsplits?\b", r"\b(?:each|every|different|"
                   r"other)\s+(?:\w+\s+)?(?:gpus?|ranks?|nodes?|process(?:es)?|workers?)\b", 300),
              1.5, key=True),
         text(near(r"random_split|random split\w*", r"\bdifferent (?:\w+ )?(?:train\w*|"
                   r"validation|val)\w*(?: data)?(?:sets?)?\b|\btrain\w* on (?:the )?"
                   r"validation\b", 400), 3, key=True),
         text(r"(?i)\bsetup\(\)|\bDataModule\b|\bddp\b", 0.5)),
        "random_split (or any shuffle that builds the split) runs in every process with its "
        "own random state: each rank gets another train/validation split, so together the "
        "ranks train on samples that are validation data elsewhere",
        "print a hash of the validation indices on every rank: they differ",
        "split with a fixed generator (random_split(ds, lengths, "
        "generator=torch.Generator().manual_seed(42))), or split once and save the indices "
        "(prepare_data), then load them in setup()",
        priority=84),
    Signature(
        "no_distributed_sampler", "every rank reads the whole dataset",
        (text(r"(?i)DistributedSampler`?\s+(?:is|was)\s+(?:not|never)\s+(?:being\s+)?used\b"
              r"|(?:without|no|not using|never uses?|doesn'?t use)\s+(?:a\s+|the\s+|any\s+)?"
              r"`?DistributedSampler", 2.5, key=True),
         text(r"(?i)\b(?:each|every|all)\s+(?:gpus?|ranks?|process(?:es)?)\s+(?:\w+\s+)?"
              r"(?:loads?|sees?|reads?|gets?|iterates?)\s+(?:over\s+)?the\s+(?:whole|same|entire|"
              r"full)\b", 3, key=True),
         text(r"(?i)\bno (?:speed|speedup|speed-up|gain)\b|\bnot (?:any )?faster\b", 1)),
        "in a hand-written DDP loop the loader has no DistributedSampler, so every rank "
        "iterates the whole dataset: N GPUs do N times the same epoch, with no speed-up, and "
        "each sample is seen N times",
        "len(loader) on each rank equals the single-GPU count",
        "sampler=DistributedSampler(dataset) (shuffle=False on the loader; set_epoch each "
        "epoch), or a framework that adds it (Lightning, Accelerate)",
        priority=82, explains=("sampler_set_epoch_missing",)),
    Signature(
        "dataset_download_race", "every rank downloads the dataset into the same folder at once",
        # the same download printed twice in a row: two processes fetch one file
        (text(r"(?m)^(Downloading \S+)\s*\n(?:[^\n]*\n){0,3}?\1\s*$", 3, key=True),
         text(near(r"\bdownload\w*", r"\b(?:every|each|all)\s+(?:the\s+)?(?:ranks?|process"
                   r"(?:es)?|gpus?)\b|\brank 0\b|\bbarrier\b|\bat the same time\b|\bsimultaneous"
                   r"\w*|\bconcurrent\w*", 200), 2, key=True)),
        "each process of a distributed job builds the dataset with download=True, so all of "
        "them fetch and extract into one folder at the same time: partial files, corrupt "
        "archives, or errors that come and go",
        "the log shows each download once per process",
        "download on rank 0 only, then a barrier (if rank == 0: build with download=True; "
        "dist.barrier(); the others build with download=False), or download before launching",
        priority=84, explains=("worker_exception", "dataset_not_downloaded",
                               "dataset_download_refused")),
    Signature(
        "not_a_dataset", "one object was given where a dataset of samples is expected",
        (text(r"object of type '(?:\w*Graph\w*|DataFrame|Series)' has no len\(\)", 3.5,
              key=True),
         # the tuple a splits() call returns, given as the dataset itself
         text(r"'tuple' object has no attribute '(?:fields|sort_key|examples)'", 3.5, key=True),
         text(near(r"\bsplit_dataset\b|\brandom_split\b|\bDataLoader\(",
                   r"\b(?:a single|one|single) (?:graph|dataframe|table)\b", 300), 2, key=True)),
        "a dataset is a sequence of samples (len() and [i]); a single graph, DataFrame or "
        "Series, or the tuple a splits() call returns, was passed where one is expected "
        "(split_dataset, random_split, a "
        "DataLoader), so len() or indexing reads the object itself, not a list of samples",
        "print(type(obj), len(obj) if hasattr(obj, '__len__') else 'no len') for what you "
        "passed",
        "wrap the samples: a list of graphs (DGL's/PyG's dataset classes), a Dataset whose "
        "__getitem__ returns df.iloc[i]; to split one graph's nodes use masks or index "
        "tensors, not a dataset splitter",
        priority=80, explains=("worker_exception", "iterable_dataset_no_len")),
    Signature(
        "series_shorter_than_window", "time series too short for the encoder and prediction "
        "windows",
        (text(r"(?:Min encoder length|min_prediction_idx)[^\n]{0,120}too large for \d+ "
              r"series/groups", 4, key=True),
         text(near(r"__len__\(\) should return >= 0", r"\b(?:input|output)_chunk_length\b|"
                   r"\bwindow\w*|\bseq(?:uence)?_len\w*|\blookback\b|\bhorizon\b|"
                   r"\bencoder_length\b", 2000), 3, key=True),
         text(near(r"\btime_idx\b|\btime index\b", r"\bnot (?:sequential|consecutive)\b"
                   r"|\bgaps?\b|\bjumps?\b|\bmissing (?:time ?steps|steps)\b", 300), 2, key=True)),
        "a windowed time-series dataset (pytorch-forecasting's TimeSeriesDataSet, darts, "
        "GluonTS) cuts each series into encoder + prediction windows over consecutive "
        "time steps; series shorter than min_encoder_length + min_prediction_length, or "
        "whose time index jumps (timestamps used as time_idx), yield no window and are "
        "dropped, or leave the dataset empty",
        "per group: the longest run of consecutive time_idx values against the windows' "
        "minimum lengths",
        "make time_idx a consecutive step counter per series (or allow_missing_timesteps "
        "with lengths that fit), lower min_encoder_length / max_prediction_length, or "
        "drop the short series",
        priority=84, explains=("empty_dataset",)),
    Signature(
        "missing_values_in_data", "the table holds missing or infinite values the dataset "
        "refuses",
        (text(near(r"\b(?:NaNs?|NA|nan values|missing values|infinite)\b",
                   r"\bnot allowed\b|\bnot in setup training set\b", 120), 2, key=True),),
        "a column of the DataFrame the dataset is built from holds NaN or inf (a merge or "
        "shift that left gaps, a failed parse): pytorch-forecasting's TimeSeriesDataSet "
        "refuses them (allow_missing_timesteps is about missing rows, not values), and "
        "fastai's tabular processing fills only the columns that had gaps in the training "
        "split",
        "df.isna().sum() and np.isinf(df.select_dtypes('number')).sum() per column",
        "fill or drop the gaps before building the dataset (df.ffill(), fillna with a flag "
        "column), drop the column, or split after filling so every split saw them",
        priority=84, explains=("worker_exception",)),
    Signature(
        "unseen_category_in_validation", "a category in validation never appears in training",
        (text(r"Unknown category '[^'\n]*' encountered|y contains previously unseen labels", 4,
              key=True),
         # a KeyError out of the encoder's own transform (the message is only the value)
         text(near(r"\bKeyError\b", r"(?:NaN)?LabelEncoder\.transform|data/encoders\.py", 600), 3,
              key=True),
         text(near(r"\b(?:validation|val|test|full)\b(?: set| data| split)?[^.\n]{0,80}"
                   r"\b(?:not|never|don'?t|doesn'?t|no)\b[^.\n]{0,40}\b(?:in|appear\w*|have|seen)\b"
                   r"[^.\n]{0,30}"
                   r"\btrain\w*|\bnot (?:present|seen|there) in (?:the |your )?train\w*|\bnot "
                   r"\w+ in `?train`?\b[^.\n]{0,40}\bvalidation\b",
                   r"\bcategor\w*|\bencoder\b|\bclasses_\b|\bKeyError\b", 400), 3, key=True),
         text(r"(?i)\bNaNLabelEncoder\b|\badd_nan\b|\bcategorical_encoders\b", 1)),
        "categorical columns are encoded with the categories seen in the training split; a "
        "value that appears only in validation or test (a month after the cutoff, a rare "
        "flag) has no code: the encoder raises KeyError ('Unknown category') or turns it "
        "into NaN, which the dataset then cannot cast to an index",
        "compare set(val[col]) - set(train[col]) for each categorical column",
        "fit the encoders on all known categories, allow unknowns (pytorch-forecasting: "
        "NaNLabelEncoder(add_nan=True) in categorical_encoders), or treat such columns as "
        "real-valued",
        priority=84, explains=("worker_exception",)),
)
