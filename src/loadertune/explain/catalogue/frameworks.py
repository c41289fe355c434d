"""What training frameworks do to the user's loader before the first batch."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING
from loadertune.explain.signature import Signature, exc, frame, near, text

# the frameworks by name, and their loader set-up calls
FRAMEWORK_NAMES = r"lightning|\bfabric\b|accelerate|\btrainer\b"
FRAMEWORKS = FRAMEWORK_NAMES + r"|\blite\b|setup_dataloaders|prepare"

OWN_SAMPLER = (r"\bBatchSampler\b|\bbatch_sampler\b|\bcustom (?:batch )?sampler\b"
               r"|\b(?:my|own) (?:\w+ )?sampler\b")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "framework_rebuilds_loader", "the framework rebuilt the loader with its own sampler",
        (text(r"Trying to inject `?DistributedSampler`? into", 4, key=True),
         text(r"(?i)\breplace_sampler_ddp\b|\buse_distributed_sampler\b", 2, key=True),
         # told in words: the user's sampler or shuffle replaced when the run went distributed
         text(near(r"\b(?:replac\w*|inject\w*|overrid\w*|swap\w*|forc\w*)\b[^.\n]{0,60}"
                   r"\b(?:sampler|shuffle)", FRAMEWORKS, 300), 2.5, key=True),
         # a sampler of the user's own that works on one device and fails once distributed:
         # the framework put its own in its place (or around the wrong one)
         text(near(OWN_SAMPLER, r"\bdistributed\b|\bddp\b|multi-?gpu|multiple gpus|multi-?node",
                   400), 1.5, key=True),
         text(near(OWN_SAMPLER, FRAMEWORK_NAMES, 600), 1.5, key=True),
         # a sampler the user never set, refused by an IterableDataset: the framework's own
         # (outweighs the message itself, which names only the clash of options)
         text(near(r"IterableDataset: expected unspecified sampler option", FRAMEWORKS, 1500),
              4.5, key=True),
         # Lightning's own functions that read a loader's arguments back to rebuild it
         text(r"_get_dataloader_init_kwargs|_update_dataloader|_dataloader_init_kwargs_resolve"
              r"|_reinstantiate_wrapped_cls|_replace_dunder_methods", 2.5, key=True),
         # a DataLoader subclass handed to a framework: rebuilt through its constructor
         text(near(r"class \w+\((?:torch\.utils\.data\.)?DataLoader\)",
                   FRAMEWORK_NAMES, 1500), 2, key=True),
         text(near(FRAMEWORKS + r"|acc?e?ll?erate", r"\b(?:reload\w*|rebuil\w*|re-?creat\w*)\b"
                   r"[^.\n]{0,60}\b(?:into |as )?an? new (?:data ?loader|loader)\b", 200), 2.5,
              key=True),
         text(r"(?i)\bre-?instantiat\w* (?:the |my |your )?(?:data ?loader|loader)|"
              r"\bsetup_dataloaders\b|\bprepare_data_loader\b", 1),
         text(r"(?i)DistributedSampler", 0.5)),
        "under DDP, Lightning (Trainer, Fabric/Lite) and Accelerate rebuild the DataLoader to "
        "put a DistributedSampler in it: they call its class again with the arguments they "
        "can read back from its attributes, so a sampler you set is replaced, shuffle comes "
        "from their defaults, and a DataLoader subclass whose constructor arguments are not "
        "stored under the same names cannot be rebuilt; the Hugging Face Trainer builds "
        "its loaders itself, with a sampler of its own",
        "print(type(loader.sampler)) on the loader the framework hands back "
        "(trainer.train_dataloader, or what setup_dataloaders / prepare returns)",
        "build the DistributedSampler yourself (wrapping your own sampler, with the shuffle "
        "you want) and turn the replacement off: Trainer(use_distributed_sampler=False) "
        "(replace_sampler_ddp=False before Lightning 2.0), Fabric.setup_dataloaders(..., "
        "use_distributed_sampler=False); keep a DataLoader subclass's constructor arguments "
        "as attributes of the same names",
        priority=70),
    Signature(
        "resume_skips_batches", "resuming mid-epoch replays the batches already trained on",
        # the HF Trainer's log on resume, and the fast-forward named by other frameworks
        (text(r"Will skip the first (?P<epochs>\d+) epochs then the first (?P<batches>\d+) "
              r"batches", 4, key=True),
         text(r"Continuing training from global step \d+", 1.5, key=True),
         # the progress bar of the replay itself
         text(r"Skipping the first batches:", 4, key=True),
         text(r"(?i)\bspin_dataloaders\b|\bignore_data_skip\b", 2, key=True),
         text(r"\bskip_first_batches\b", 1),
         text(near(r"\bresum\w*|from (?:a |the )?checkpoint", r"\bhang\w*|\bstuck\b"
                   r"|\bGPU util\w* (?:is )?0\b|no (?:further )?(?:logging|progress)", 200), 1)),
        "to resume mid-epoch with the same data order, the trainer fast-forwards its "
        "DataLoader to the saved step by loading (and throwing away) every batch already "
        "trained on: with hundreds of thousands of batches that takes hours, the GPUs idle "
        "and nothing is logged, so it looks like a hang",
        "the log's \"skip the first N batches\" line; progress resumes after about N times a "
        "batch's load time",
        "HF Trainer: ignore_data_skip=True (a fresh data order, no wait), or a newer "
        "transformers (it skips sampler indices through Accelerate's skip_first_batches, "
        "without loading them); Composer: spin_dataloaders=False; in your own loop, start "
        "the sampler at an offset or use torchdata's StatefulDataLoader instead of replaying",
        detail="{batches} batches to replay", priority=70, context=ABOUT_LOADING,
        explains=("worker_hang",)),
    Signature(
        "trainer_removes_columns", "the Trainer removed dataset columns the collator needs",
        # HF Trainer keeps only the columns model.forward() names (remove_unused_columns)
        (text(r"(?i)\b_?remove_unused_columns\b(?!\W{0,3}(?:False|0)\b)", 3, key=True),
         text(r"The following columns in the (?:training|evaluation|test) set don'?t have a "
              r"corresponding argument in", 2.5, key=True),
         text(near(r"\bkey ?error\b", r"\bdata ?collator\b|\bcollate_fn\b|\bset_transform\b"
                   r"|\bwith_transform\b", 100), 2, key=True),
         # a model input missing from the examples the collator gets
         text(near(r"KeyError: '(?:input_ids|labels?|pixel_values|attention_mask|input_features"
                   r"|images?|text|audio)'", r"\bcollat\w*|\bexamples?\b", 400), 2, key=True),
         text(r"(?i)\bTrainer\b|trainer\.train\(\)", 1),
         text(r"(?i)\bremove_unused_columns\W{0,3}(?:False|0)\b", -3)),
        "the Hugging Face Trainer builds its DataLoader from a copy of the dataset that keeps "
        "only the columns model.forward() takes (remove_unused_columns=True); a collator or a "
        "set_transform/with_transform that needs another column (the raw image, text or "
        "labels under another name) gets samples without it and fails with a KeyError",
        "the Trainer's log line \"The following columns ... have been ignored\" names the "
        "columns it dropped",
        "TrainingArguments(remove_unused_columns=False), or rename the columns to the "
        "model's forward() arguments before training",
        priority=75, context=ABOUT_LOADING),
    Signature(
        "dispatch_batches_concat", "Accelerate joins the processes' batches of different lengths",
        # process 0 reads a batch per process and concatenates them before splitting
        (frame(r"accelerate/data_loader\.py in _fetch_batches$", 3, key=True),
         frame(r"accelerate/utils/operations\.py in concatenate$", 1),
         text(r"(?i)\bdispatch_batches\b(?!\W{0,3}(?:False|0)\b)", 2, key=True),
         exc(r"Sizes of tensors must match except in dimension 0", 1)),
        "with an IterableDataset, Accelerate (and the Hugging Face Trainer through it) "
        "defaults to dispatch_batches=True: process 0 reads one batch for every process and "
        "joins them with torch.cat before splitting them out, so batches of different "
        "lengths (unpadded sequences) cannot be joined",
        "the traceback passes through accelerate/data_loader.py _fetch_batches and "
        "concatenate",
        "pad every batch to one length (padding='max_length' in the tokenizer or collator), or "
        "let each process read its own batches: Accelerator(dataloader_config="
        "DataLoaderConfiguration(dispatch_batches=False)) (Accelerate < 0.28: "
        "Accelerator(dispatch_batches=False)); in the Trainer, TrainingArguments("
        "accelerator_config={'dispatch_batches': False}) (older transformers: "
        "dispatch_batches=False)",
        priority=80, explains=("collate_size_mismatch",)),
    Signature(
        "lightning_hook_missing", "Lightning found no *_dataloader hook for the loop it was "
        "asked to run",
        (text(r"No `?'?(?:train|val|test|predict)_dataloader\(\)`?'? method defined", 4,
              key=True),
         # Lightning before 0.6 looked the hook up through a lazy attribute of its own
         text(r"object has no attribute '_lazy_(?:train|val|test)_dataloader'", 4, key=True),
         text(r"`?(?:train|val|test|predict)_dataloader`? must be implemented", 4, key=True),
         # told in words: a validation (test) step that never runs
         text(near(r"\b(?:validation|test)_step\b", r"\b(?:not|never|n't) (?:be(?:ing)? )?"
                   r"(?:run|called|executed)\b|\bdoes(?: not|n't) run\b|\bskip\w*", 200),
              2.5, key=True),
         text(r"(?i)\blightning\b|\bTrainer\b|\bLightningDataModule\b|\bdatamodule\b", 0.5)),
        "Lightning runs a loop only with a loader for it: it calls the model's or the "
        "datamodule's train_dataloader/val_dataloader/test_dataloader hook; the hook is not "
        "defined, named otherwise (valid_dataloader, test_loader), or the datamodule was "
        "passed to fit but not to trainer.test()/validate(), so Lightning refuses the loop "
        "(or skips validation without a word)",
        "list the hooks: [m for m in dir(datamodule) if m.endswith('_dataloader')]",
        "define the hook under its exact name in the LightningModule or LightningDataModule, "
        "or pass the loaders or the datamodule to the call (trainer.test(model, "
        "datamodule=dm))",
        priority=84),
    Signature(
        "dataset_not_registered", "the framework's registry has no dataset by that name",
        (text(r"Dataset '[^'\n]*' is not registered|\w+ is not in the \w+ registry"
              r"|No object named '[^'\n]+' found in '\w+' registry", 4, key=True),
         # a one-letter name: a string where a tuple of names was expected ("a"[0] == "a")
         text(r"Dataset '\w' is not registered", 1.5),
         # told in words, or a lookup failing in detectron2's catalogue
         text(r"(?i)\bdataset\b[^.\n]{0,30}\bnot registered\b", 2.5, key=True),
         text(r"detectron2/data/catalog\.py", 1.5, key=True),
         # LLaMA-Factory's registry file, read from the working directory
         text(r"Undefined dataset \S+ in dataset_info\.json", 4, key=True),
         text(near(r"dataset_info\.json", r"No such file or directory|\[Errno 2\]", 200), 3,
              key=True),
         # a name missing from a dataset table the library looks names up in
         text(r"\n[ \t]*[\w.]+ = [\w.]*(?:datasets?|registry|catalog)\w*\[(?:name|dataset_name|"
              r"key)\]\n(?:[^\n]*\n)?KeyError: '[^'\n]+'", 3, key=True),
         text(r"(?i)\bDatasetCatalog\b|\bregister\w*\b|\bregistry\b", 0.5)),
        "detectron2, MMDetection/MMEngine and their kind find a dataset by name in a registry "
        "(LLaMA-Factory: data/dataset_info.json, read from the working directory) "
        "filled by registration code: that code did not run in this process (the module "
        "defining the dataset class never imported, custom_imports missing), or the config "
        "names something else; a config value of (\"name\") is the string \"name\", not a tuple, "
        "so each of its letters is looked up as a dataset",
        "print(DatasetCatalog.list()) (MMEngine: DATASETS.module_dict.keys()) in the process "
        "that fails",
        "import the module that registers the dataset before building the loader (MMEngine: "
        "custom_imports=dict(imports=[...])); write one-name tuples with a comma: "
        "(\"name_train\",)",
        priority=84, explains=("worker_exception",)),
    Signature(
        "group_by_length_unsupported", "group_by_length cannot measure or sort this dataset",
        (text(r"Can only automatically infer lengths for datasets whose items are dictionaries "
              r"with an '?input_ids'? key", 4, key=True),
         text(r"`?group_by_length`? option is only available for `?Dataset`?, not "
              r"`?IterableDataset", 4, key=True),
         text(r"(?i)--?group_by_length\b", 1)),
        "the Hugging Face Trainer's group_by_length sorts a map-style dataset by each item's "
        "length, read from its input_ids (or a lengths column): items without input_ids "
        "(DPO's chosen/rejected pairs, raw text) and datasets with no random access (a "
        "streaming IterableDataset, a packed ConstantLengthDataset) cannot be grouped",
        "does dataset[0] have an input_ids key, and is the dataset map-style (has __len__ "
        "and __getitem__)?",
        "turn group_by_length off for this dataset, or give it a length column "
        "(length_column_name) on a tokenised map-style dataset",
        priority=84),
    Signature(
        "trainer_dataset_args", "the trainer refuses the dataset in the form it was given",
        (text(r"You passed `?packing=False`? to the SFTTrainer, but you didn'?t pass a "
              r"`?dataset_text_field`? or `?formatting_func`?", 4, key=True),
         text(r"(?i)\bConstantLengthDataset\b|\bSFTTrainer\b", 1)),
        "TRL's SFTTrainer builds its own dataset from a text field, and its dataset options "
        "must fit the data's form: given packing=False it needs dataset_text_field or "
        "formatting_func (an early release refused a dataset already packed in a "
        "ConstantLengthDataset without packing=True), packing needs max_length, "
        "completion_only_loss needs prompt-completion data and assistant_only_loss "
        "conversational data, and a formatting_func must return strings",
        "the SFTTrainer(...) call and its SFTConfig: which of packing, max_length, "
        "dataset_text_field, formatting_func and the *_only_loss options it passes, against "
        "the columns of dataset[0]",
        "pass the options the message names: packing=True for a prepacked dataset (or update "
        "TRL), name the text field (dataset_text_field=...) or a formatting_func, set "
        "max_length, or drop the loss option the data's form does not support",
        priority=84),
    Signature(
        "frozen_dataclass_batch", "Lightning cannot move a frozen dataclass in the batch",
        (text(r"A frozen dataclass was passed to `?apply_to_collection`? but this is not allowed",
              4, key=True),
         text(r"(?i)is your batch a frozen dataclass", 3, key=True)),
        "Lightning moves each batch to the device with apply_to_collection, which rebuilds "
        "dataclasses field by field; a frozen dataclass in the batch (torchgeo's BoundingBox, "
        "your own @dataclass(frozen=True)) cannot be rebuilt that way, so the step refuses "
        "the batch",
        "print(type(v) for v in batch.values()) and look for dataclasses.is_dataclass(v) with "
        "frozen=True",
        "turn it into a tuple/list or tensor in the dataset or collate_fn (keep the object "
        "out of the batch), or override transfer_batch_to_device to skip it",
        priority=84),
    Signature(
        "indexers_applied_in_reader", "AllenNLP instances indexed in the reader, with workers",
        (text(r"Found a TextField \(\w+\) with token_indexers already applied, but you'?re "
              r"using num_workers > 0", 4, key=True),),
        "with num_workers > 0 AllenNLP 2 sends instances to the workers before indexing, "
        "and applies the token indexers itself; a dataset reader that builds "
        "TextField(tokens, indexers) in text_to_instance has applied them already",
        "look for TextField(..., self._token_indexers) in the reader's text_to_instance",
        "build TextField(tokens) and set the indexers in the reader's "
        "apply_token_indexers(instance)",
        priority=85),
    Signature(
        "resume_state_mismatch", "the loader state saved in a checkpoint does not fit the "
        "loader it is restored into",
        (text(near(r"\bstate\b", r"\bdoesn'?t match the current one|\bstates? in the "
                   r"checkpoint\b", 60), 1.5, key=True),
         text(r"(?i)\bload_state_dict\b|\bresum\w+|\bckpt_path\b", 0.5)),
        "a resumable loader (litdata's StreamingDataLoader, Lightning's CombinedLoader, "
        "torchdata's StatefulDataLoader) saves how far each worker got; restored into a "
        "loader built with other settings (num_workers, shuffle, seed, input_dir, "
        "drop_last, the number of loaders) it cannot map that state onto the new workers "
        "and refuses",
        "diff the loader's arguments in the run that saved the checkpoint and in this one",
        "rebuild the loader with the saved run's settings to resume mid-epoch, or resume "
        "from an epoch boundary without the loader state (drop it from the checkpoint)",
        priority=86),
    Signature(
        "log_batch_size_ambiguous", "Lightning cannot tell the batch size from the batch for "
        "self.log",
        (text(near(r"\binfer\w* (?:the )?`?batch_size`?", r"\bself\.log\b|\bambiguous\b", 200),
              1.5, key=True),),
        "self.log averages a value over an epoch weighted by each batch's size, which "
        "Lightning reads from the first dimension of the batch's tensors; a batch that holds "
        "fields of different lengths (a dict with a list of strings beside tensors, several "
        "inputs) leaves it guessing (a warning at every step, with a different size each "
        "time), and one without tensors cannot be read at all",
        "print the type and len/shape of every field of one batch",
        "pass the size: self.log(name, value, batch_size=len(batch['x'])), or keep fields "
        "the step does not use out of the batch",
        priority=84),
)
