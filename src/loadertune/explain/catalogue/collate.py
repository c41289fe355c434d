"""How samples become a batch and travel to the main process: collate and the queue."""

from __future__ import annotations

from loadertune.explain.signature import Signature, exc, frame, near, raised_in, text

# the exception came out of the dataset's own __getitem__ (its own torch.stack, its own
# lookup), not out of the loader's collate: a worker exception, whatever its message says
RAISED_IN_DATASET = raised_in(r" in __getitem__$", -3)
# PyTorch Geometric, whose loader collates Data objects with its own Batch
PYG = r"torch_geometric|\bPyG\b"

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "collate_size_mismatch", "samples of different sizes cannot be stacked into a batch",
        (text(r"stack expects each tensor to be equal size(?:, but got \[(?P<shape_a>[^\]]*)\] "
              r"at entry (?P<entry_a>\d+) and \[(?P<shape_b>[^\]]*)\] at entry "
              r"(?P<entry_b>\d+))?", 4, key=True),
         text(r"(?i)each element in list of batch should be of equal size", 3, key=True),
         # torch <= 1.4: default_collate's stack went through cat
         text(r"Sizes of tensors must match except in dimension 0", 2.5, key=True),
         # sequences of different lengths turned into one tensor (torch.tensor on lists, a
         # Hugging Face collator without padding)
         text(r"expected sequence of length \d+ at dim \d+ \(got \d+\)", 3, key=True),
         text(r"Unable to create tensor, you should probably activate truncation and/or "
              r"padding", 2.5, key=True),
         # num_workers > 0: collate stacks into shared storage sized from the first sample
         text(r"Trying to resize storage that is not resizable", 2.5, key=True),
         # the same failure described in prose (titles, questions)
         text(r"(?i)\bstack\w*\b[^\n]{0,60}\b(?:(?:without|not|n't)\s+(?:the\s+)?(?:same|equal)"
              r"|different|unequal|varying|variable)\s+(?:sizes?|shapes?|lengths?)", 2.5, key=True),
         frame(r"collate\.py in (?:default_)?collate\w*$", 1),
         RAISED_IN_DATASET,
         text(r"(?i)equal size|same size|different sizes?", 0.5)),
        "the default collate stacks the samples of a batch into one tensor; samples of "
        "different shapes (images of different sizes, sequences of different lengths) "
        "cannot be stacked",
        "print the shapes of a few dataset items (the message names two of them)",
        "resize/crop (or pad) every sample to one shape in the dataset's transform, bucket "
        "by size, or write a collate_fn that pads (torch.nn.utils.rnn.pad_sequence) or "
        "returns a list",
        detail="entry {entry_a} has shape [{shape_a}], entry {entry_b} has [{shape_b}]",
        priority=85),
    Signature(
        "collate_unsupported_type", "a sample holds a type the default collate cannot batch",
        (text(r"(?:default_collate: )?batch must contain tensors, (?:numpy arrays, )?numbers, "
              r"dicts or lists; found (?P<found>[^\n]+)", 4, key=True),
         text(r"(?i)found <class '(?:PIL|NoneType)", 1),
         # the message cut off: collate raised (or a TypeError while fetching a batch), and
         # the text names the usual culprits (None returned, a PIL image, no ToTensor)
         frame(r"collate\.py in (?:default_collate|collate)\w*$", 1, key=True),
         RAISED_IN_DATASET,
         text(r"(?is)\bTypeError\b.{0,3000}?_utils/fetch\.py", 1, key=True),
         # PyG's own collate: a type it takes no more, or a tuple where it expects Data
         text(r"DataLoader found invalid type: <class", 4, key=True),
         text(near(PYG + r"|\bBatch\b", r"'tuple' object has no attribute "
                   r"'keys'", 1500), 3.5, key=True),
         # a numpy array where a (custom) collate calls tensor methods
         exc(r"'numpy\.ndarray' object has no attribute '(?:new|to|cuda|size|dim|float|long"
             r"|unsqueeze|permute|contiguous|numel|is_cuda|device|new_\w+)'", 2, key=True),
         frame(r"collat\w*\.py in ", 1),
         # a Hugging Face collator names a field that is no token id list: a raw (text) field
         # was left in the features
         text(r"features ?\(\s*[`\"']?(?!input_ids\b|labels?\b|attention_mask\b|"
              r"token_type_ids\b|decoder_input_ids\b|pixel_values\b|position_ids\b)\w+[`\"']? "
              r"in this case\)", 3.5, key=True),
         text(r"(?i)(?:return\w*|retourn\w*|renvo\w*)\s+(?:a\s+)?None\b|\bPIL\b[^\n]{0,40}"
              r"image|\bto_?tensor\b", 1.5)),
        "the default collate batches tensors, numpy arrays, numbers, strings and their "
        "dicts/lists; a sample held something else: a PIL image (no ToTensor in the "
        "transform), None (the dataset returned nothing for some index) or a numpy object "
        "array; a Hugging Face collator takes token ids only, and a field that was never "
        "tokenised (a text column under another name) reaches it raw; PyG's collate takes "
        "Data objects (a tuple of them only from 1.5), and one release dropped strings",
        "print type(dataset[i]) and the types inside it for a few i",
        "convert in the dataset's transform (transforms.ToTensor(), np.asarray(..., "
        "dtype=float)), never return None (filter bad items or skip them in a collate_fn)",
        detail="found {found}", priority=85),
    Signature(
        "collate_mapping_type",
        "default_collate rebuilt a dict-like sample through its constructor",
        # torch >= 1.11: a Mapping batch is rebuilt as elem_type({...}); a dict subclass whose
        # __init__ means something else (torchio's Subject, an attribute dict) fails in it
        (text(r"return elem_type\(\{key:", 3, key=True),
         text(near(r"\bcollat\w*", r"\bconstructor\b|__init__\(|\bcreat\w* (?:an? )?(?:new )?"
                   r"(?:object|instance)", 150), 2, key=True),
         text(r"(?i)\b(?:dict(?:ionary)? subclass|subclass(?:es)? (?:of )?dict|Mapping)\b", 1),
         # torchio's Subject/Image rebuilt from the batch dict: a key taken as the file path
         text(r"File not found: \"(?:affine|path|data|type|stem)\"", 2.5, key=True),
         text(r"(?i)\btorchio\b|\btio\.(?:Subject|ScalarImage|LabelMap)", 1),
         # torchio's own warning about this (torch >= 2.3)
         text(r"collated batch(?:es)? will be instances of|without a torchio\.SubjectsLoader", 3,
              key=True),
         text(r"(?i)\b1\.1[01]\b|nightly", 0.5)),
        "since torch 1.11 default_collate rebuilds a batch of dict-like samples by calling the "
        "sample's own type with a dict of batched values (elem_type({key: ...})); a dict "
        "subclass whose constructor expects something else (a path, keyword arguments) fails "
        "there, or builds a wrong object, instead of falling back to a plain dict",
        "`loadertune doctor DATASET` loads and collates a few samples; or call "
        "default_collate([dataset[0], dataset[1]]) and read the traceback",
        "return a plain dict from __getitem__, give the subclass a constructor that accepts a "
        "dict (or raise TypeError so collate falls back), or pass a collate_fn",
        priority=80, explains=("worker_exception",)),
    Signature(
        "collate_list_field", "a list field comes out as a list of tensors, not one tensor",
        # default_collate transposes a sequence field: one batched tensor per position
        (text(r"(?i)\b(?:returned|returns?|comes? out|get|got|gives?)\s+(?:back\s+)?(?:as\s+)?"
              r"(?:a\s+)?lists?\s+of\s+(?:\d+\s+)?tensors\b", 2, key=True),
         text(r"(?i)\bnot\s+(?:get(?:ting)?\s+)?batch(?:-?ifi|ed\b)\w*|\bbatch-?ifi\w*", 1.5,
              key=True),
         text(near(r"\blists?\b", r"\binstead of (?:a |one )?(?:single )?tensor|\bnot (?:a |one )?"
                   r"(?:single )?tensor", 80), 1.5, key=True),
         text(near(r"\btranspos(?:e[sd]?|ing|ition)\b", r"\bbatch\w*|collat\w*", 80), 2.5,
              key=True),
         # batch_size=1 over a list of strings: one 1-tuple per position
         text(r"\[\('[^'\n]*',\), \('[^'\n]*',\)", 2.5, key=True),
         text(r"(?i)default_collate|collate", 0.5)),
        "default_collate batches a sample's list (or tuple) field position by position: a field "
        "that is a Python list of n numbers comes out as a list of n tensors of batch_size "
        "each, not one (batch_size, n) tensor",
        "print(type(dataset[0][KEY])) and the type of the same field in a batch",
        "return the field as a tensor or numpy array (torch.as_tensor(values)), or stack it in "
        "a collate_fn",
        priority=75),
    Signature(
        "unpicklable_batch", "the batch a worker returns cannot be pickled",
        # the worker's queue feeder thread pickles each batch for the main process
        # (the feeder's frame alone is no evidence: a hang's thread dump shows it idle)
        (frame(r"queues\.py in _feed$", 1.5),
         text(r"obj = _ForkingPickler\.dumps\(obj\)", 1.5, key=True),
         text(r"(?i)it'?s not the same object as", 1.5),
         # a batch class that pickling cannot find again ("Can't pickle <class '...Batch'>")
         text(near(r"it'?s not the same object as", r"\bbatch\w*|collat\w*", 120), 2, key=True),
         text(near(r"\bpickl\w*|\bserializ\w*", r"background thread|feeder thread|mp\.Queue",
                   150), 2, key=True),
         # a namedtuple class made at run time (or in a notebook) as the sample or batch type
         text(near(r"\bnamedtuples?\b", r"\bpickl\w*|num_?workers|\b(?:multiple|parallel|several)"
                   r" (?:\w+ )?workers\b|\bcollat\w*", 200), 2.5, key=True),
         exc(r"PicklingError|[Cc]an'?t pickle|cannot pickle", 1)),
        "each batch travels from its worker to the main process pickled (the queue's feeder "
        "thread); something in it cannot be pickled: a class created at run time or redefined "
        "(\"not the same object as\"), a lambda, an open file or a generator in a sample",
        "`python -c \"import pickle; pickle.dumps(next(iter(DataLoader(ds, batch_size=2))))\"`",
        "return only tensors, arrays, numbers, strings and their containers from the dataset "
        "and collate_fn; upgrade the library whose batch class fails to pickle",
        priority=82, explains=("worker_hang",)),
    Signature(
        "collate_keys_mismatch", "the samples of a batch do not have the same fields",
        # default_collate takes the keys of the first sample: a later one without it
        (text(near(r"\[d\[key\] for d in batch\]", r"\bKeyError: ", 400), 4, key=True),
         # PyG's Batch adds the node counts of each sample's attribute (None when missing)
         text(near(PYG, r"unsupported operand type\(s\) for \+: 'int' "
                   r"and 'NoneType'", 1500), 3.5, key=True),
         text(r"(?i)\b(?:same|different|missing|inconsistent)\s+(?:set of\s+)?(?:keys|fields|"
              r"attributes)\b", 1.5, key=True),
         frame(r"collate\.py in (?:default_)?collate\w*$|torch_geometric/data/(?:batch|collate)"
               r"\.py", 1)),
        "the samples of one batch do not have the same fields: a dict (or PyG Data object) "
        "with a key some samples lack or hold as None; collate builds the batch from the "
        "first sample's keys and fails on the first sample without one",
        "print(sorted(dataset[i].keys())) for a few i (PyG: data.keys()): they differ",
        "give every sample the same keys (fill a default, drop the optional field, or store "
        "it as an empty tensor), or write a collate_fn that handles missing fields",
        priority=86, explains=("worker_exception", "collate_unsupported_type")),
    Signature(
        "bucket_iterator_sort_key", "torchtext's BucketIterator was built without sort_key",
        (text(r"'<' not supported between instances of 'Example' and 'Example'", 4, key=True),
         text(r"(?i)BucketIterator|sort_key", 1)),
        "legacy torchtext's BucketIterator sorts examples to bucket them by length; "
        "without a sort_key (the dataset's own is set only for its built-in datasets) it "
        "compares Example objects, which have no order",
        "look for sort_key= in the BucketIterator (or splits) call",
        "pass sort_key=lambda ex: len(ex.text) (and sort_within_batch=True), or move off "
        "the legacy API to a DataLoader with a length-bucketing sampler",
        priority=85),
)
