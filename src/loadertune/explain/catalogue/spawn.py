"""Start methods: spawn/forkserver re-import the main module and pickle what workers need."""

from __future__ import annotations

from loadertune.explain.catalogue.common import (
    ABOUT_LOADING,
    DATAPIPE_LAMBDA_WARNING,
    NUM_WORKERS_ZERO_WORKS,
    SPAWN_PLATFORMS,
    WINDOWS,
)
from loadertune.explain.signature import Signature, exc, frame, near, phrase, text

PICKLE_ERROR = (r"(?i)can'?t pickle|cannot (?:be )?pickle|can'?t get (?:local object|attribute)"
                r"|cannot be pickled")

PICKLE_WORDS = (r"(?:(?:can'?t|cannot|could\s?n[o']t|not|un)[ -]?(?:be\s+)?pickl\w*|pickl\w*\s+"
                r"(?:error|fail\w*))")
# torch >= 2.9 warns before the worker fails (forkserver is the default from Python 3.14)
PICKLE_WARNING = r"Got pickle error when attempting to start a worker Process"

# told in words: on Windows (always spawn) the script fails until its workers are taken out;
# evidence for both spawn causes, the exception (if any) decides between them
WINDOWS_WITHOUT_WORKERS = text(near(
    r"\bwindows\b|\bwin(?:7|10|11|32)\b",
    r"(?:comment\w*|remov\w*|delet\w*|without)\s+(?:out\s+)?(?:the\s+)?num_?workers"
    r"|num_?workers\s*=\s*0\b", 200), 1.5, key=True)

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "spawn_bootstrap", "workers started before the main module finished importing",
        (text(phrase("An attempt has been made to start a new process before the current "
                     "process has finished its bootstrapping phase"), 4, key=True),
         text(r"freeze_support\(\)", 2.5, key=True),
         text(r"\bfreeze_support\b(?!\(\))", 2, key=True),  # named in words
         text(r"(?i)bootstrapping phase", 2, key=True),
         frame(r"spawn\.py in _fixup_main_from_path$", 1.5, key=True),
         # several spawned children failing as they start (their tracebacks interleave):
         # with no other message, the script that starts workers on import is the usual cause
         frame(r"spawn\.py in spawn_main$", 1.5, key=True, min_count=2),
         # on Windows, a failure while the iterator starts its (spawned) workers: with no
         # pickling or page-file message, the script without a main guard is the usual cause
         text(r"[A-Z]:/[^\n]*/torch/utils/data/dataloader\.py\"?, line \d+, in _get_iterator",
              1.5, key=True),
         text(r"(?m)^ ?\w+ ?= ?(?:torch\.utils\.data\.)?DataLoader\(", 1, key=True),
         text(r"(?i)num_?work\w*[^\n]{0,60}(?:not zero|non-?zero|greater than (?:0|zero))", 1),
         WINDOWS_WITHOUT_WORKERS,
         # a guard in the script counts against; the guard in the error's advice does not
         text(r"if __name__ ?== ?['\"]__main__['\"]\s*:(?!\s*freeze_support)", -2),
         text(near(r"\b(?:wrap|put|mov|plac)\w*", r"if __name__ ?== ?['\"]__main__", 80), 3.5,
              key=True),
         text(r"(?i)(?:wrap|put|move|place)[^\n]{0,60}(?:within|inside|under|in)\W{0,3}"
              r"`?if __name__ ?== ?['\"]__main__", 3.5, key=True),
         text(r"(?i)(?:multiprocessing|start) methods? (?:is |are )?different|default start "
              r"method", 1),
         text(r"(?i)\b(?:outside|without)\s+(?:of\s+)?(?:the\s+|an?\s+)?`?if __name__ ?== ?['\"]"
              r"__main__|\b(?:no|missing|without)\s+(?:a\s+|the\s+)?main guard", 3, key=True),
         text(r"(?i)\bforkserver\b", 0.5),
         # a run that hangs on Windows or macOS (spawn): most often no main guard
         text(near(SPAWN_PLATFORMS,
                   r"\bstuck\b|\bhangs?\b|\bhanging\b|\bhung\b|\bfreez\w*|\bfrozen\b", 200), 2,
              key=True),
         # a notebook is never re-imported: its spawn failure is a class workers cannot find
         text(r"(?i)jupyter|\bnotebook\b|ipykernel|\.ipynb", -1),
         WINDOWS),
        "with spawn/forkserver (Windows, macOS, Python 3.14+ Linux) each worker re-imports "
        "the main script; the script creates/iterates its DataLoader at import time, outside "
        "`if __name__ == \"__main__\":`, so every worker tries to start workers again",
        "`loadertune doctor train.py` points at the line that iterates at import time",
        "put the training code in a function and call it under `if __name__ == "
        "\"__main__\":`",
        priority=95, probes=("startmethod",), min_score=1.5),
    Signature(
        "pickle_local_object", "a local function or lambda cannot be pickled",
        (text(r"Can't pickle local object '(?P<object>[^']+)'", 4, key=True),
         text(r"Can't get local object", 4, key=True),
         text(r"Can't pickle <function <lambda>", 4, key=True),
         text(r"attribute lookup <lambda> on \S+ failed", 4, key=True),
         text(r"Can't pickle <function [^>]*<locals>", 4, key=True),
         # the message as retyped in titles and prose: any case, no quotes, "cannot"
         text(r"(?i)(?:can'?t|cannot|could ?n[o']t) (?:be )?pickled? (?:a |the )?local "
              r"(?:object|function|class|lambda)", 3.5, key=True),
         text(r"(?i)pickl[^\n]{0,80}\.<locals>\.", 3, key=True),
         # told in words: "can't pickle ... lambda", "not pickleable" near a lambda
         text(near(PICKLE_WORDS, r"\blamb?da\b", 300), 3, key=True),
         text(near(PICKLE_WORDS, r"\b(?:local|nested|inner)\s+(?:\w+\s+)?(?:function|class|object)",
                   120), 3, key=True),
         # the usual reason for torch's warning: a lambda or closure among the worker's args
         text(PICKLE_WARNING, 2.5, key=True),
         # a PicklingError whose message is cut: lambdas and local functions are most of them
         exc(r"^(?:_pickle\.)?PicklingError\b", 1.5, key=True),
         # "causes an AttributeError when 'spawn' is used" (Can't pickle local object ...)
         text(near(r"\bAttributeError\b", r"\bspawn\b", 150), 1.5, key=True),
         text(near(r"\b(?:nested|inner|local) (?:function|class|lambda|def)\b",
                   r"num_?workers|\bspawn\w*|\bworkers?\b", 200), 2, key=True),
         # told in words: a function that is not top-level cannot be pickled
         text(near(r"pickl", r"(?:not (?:a )?top[- ]level|nested|inner) function", 120), 3,
              key=True),
         # a pickling error on Windows/macOS told without its message: lambdas and local
         # functions are most of them
         text(near(PICKLE_WORDS, SPAWN_PLATFORMS, 300), 2, key=True),
         frame(r"popen_spawn_win32\.py in __init__$|reduction\.py in dump$", 0.5),
         # DataPipes warn when they are built with a lambda (noise on its own: harmless.py);
         # the user's own pipeline holding the lambda is theirs to replace
         text(near(DATAPIPE_LAMBDA_WARNING, r"\.(?:map|filter|flatmap|collate)\(\s*lambda\b"
                   r"|collate_fn\s*=\s*lambda\b", 3000), 4, key=True)),
        "under spawn/forkserver the dataset, collate_fn and worker_init_fn are pickled for "
        "each worker; a lambda or a function defined inside another function cannot be "
        "pickled (the child's EOFError is only the echo of that)",
        "`loadertune doctor train.py` names the object that cannot be pickled",
        "define the function with `def` at module level (functools.partial for arguments)",
        priority=85, probes=("startmethod",)),
    Signature(
        "spawn_main_attribute", "workers cannot find a class defined in __main__",
        (text(r"Can't get attribute '(?P<name>[^']+)' on <module '__(?:mp_)?main__'", 4,
              key=True),
         text(r"(?i)defined (?:in|within|inside) (?:the|a|my|your) (?:notebook|jupyter|ipython)",
              2, key=True),
         text(r"(?i)\bspawn\b", 1),
         text(r"(?i)notebook|jupyter|ipython|interactive", 1),
         # workers from a notebook on Windows (always spawn): the error goes to the server's
         # console and the cell only seems to hang
         text(near(r"\bwindows\b|\bwin(?:10|11)\b", r"jupyter|ipython|\bnotebook", 200), 1.5,
              key=True),
         text(r"(?i)could not be found|can'?t be found|cannot be found", 0.5)),
        "a spawn/forkserver worker unpickles the dataset by importing its class, but the class "
        "lives in an interactive session or notebook's __main__, which the worker cannot import "
        "(on Windows the error is printed in the notebook server's console, so the cell only "
        "seems to hang)",
        "`loadertune doctor module:dataset` from a .py module works where the notebook "
        "does not",
        "move the Dataset class (and collate_fn) into a .py module and import it",
        priority=85),
    Signature(
        "getattr_recursion_unpickle", "__getattr__ calls itself while a worker unpickles",
        # a delegating __getattr__ reads an attribute unpickling has not restored yet
        (frame(r" in __getattr__$", 2, key=True, min_count=2),
         text(near(r"__getattr__|\bgetattr\b", r"\brecurs\w*|\bcalls? itself\b", 80), 2.5,
              key=True),
         text(r"RecursionError|maximum recursion depth exceeded", 1),
         # a recursion that only Windows/macOS show: their workers unpickle the dataset
         text(near(r"RecursionError|maximum recursion depth", SPAWN_PLATFORMS, 300), 2, key=True),
         text(r"reduction\.pickle\.load\(from_parent\)|__setstate__|\bpickl\w*", 1)),
        "the dataset (or a wrapper around it) defines __getattr__ that reads one of its own "
        "attributes (self.dataset, self.x); a spawned worker rebuilds the dataset by unpickling "
        "without calling __init__, so that attribute is missing, Python calls __getattr__ for "
        "it, and __getattr__ calls itself until RecursionError",
        "`python -c \"import pickle; pickle.loads(pickle.dumps(dataset))\"` recurses the same "
        "way",
        "in __getattr__, raise AttributeError for names it cannot delegate yet (if name == "
        "'dataset' or name.startswith('__'): raise AttributeError(name)), or read the wrapped "
        "object through self.__dict__",
        priority=86, probes=("pickling",), explains=("dataset_retry_recursion",)),
    Signature(
        "unpickle_constructor_args", "an object sent between processes cannot be rebuilt",
        # unpickling calls cls.__new__ (and an exception's __init__) with the arguments the
        # object's __reduce__ gives: a subclass that needs more gets none
        (text(near(r"__(?:new|init)__\(\) (?:missing \d+ required|takes \d+ positional|got an "
                   r"unexpected keyword)", r"_ForkingPickler\.loads|pickle\.loads?\(|\bunpickl\w*"
                   r"|copyreg|__reduce(?:_ex)?__|reduction\.py|queues\.py", 1500), 4, key=True),
         text(near(r"__new__\(\) missing \d+ required", r"num_?workers|\bworkers?\b", 600), 2,
              key=True),
         # torch rebuilds a worker's exception as exc_type(msg): extra parameters are missing
         text(near(r"__init__\(\) missing \d+ required", r"\.reraise\(\)|raise self\.exc_type\("
                   r"|ExceptionWrapper", 600), 4, key=True),
         text(r"return _ForkingPickler\.loads\(res\)", 1)),
        "an object that travels between processes (an index from the sampler, a sample, a "
        "batch, an exception raised in a worker) is a class whose __new__ or __init__ requires "
        "arguments (a tuple or namedtuple subclass, an exception with extra parameters); "
        "unpickling calls it without them, so the other process cannot rebuild it",
        "`python -c \"import pickle; pickle.loads(pickle.dumps(obj))\"` on one such object "
        "raises the same TypeError",
        "give the class __getnewargs__ (tuple/int subclasses) or __reduce__ returning its "
        "constructor arguments, give the arguments defaults, or (exceptions) pass every "
        "argument to super().__init__",
        priority=80, probes=("pickling",)),
    Signature(
        "spawn_fresh_state", "spawned workers lack state the parent set at run time",
        # spawn/forkserver workers import modules afresh: runtime changes are not there
        (text(near(r"is not registered|DatasetCatalog\.get", r"--num[-_]gpus[ =]+[2-9]", 3000), 3.5,
              key=True),
         text(near(r"\bspawn\w*|\bforkserver\b|\bnot (?:created|started) (?:with|by) fork\b",
                   r"\bsingleton\b|\bglobal (?:state|variables?|config\w*)|\bmodule[- ]level "
                   r"(?:state|variables?|globals?)|\bmonkey[- ]?patch\w*|\bdefault (?:config\w*|"
                   r"values|parameters|settings)\b", 300), 2.5, key=True),
         text(r"(?i)\b(?:values?|settings?|config\w*|changes|state|patches) (?:set|made|loaded|"
              r"changed|applied) (?:in|by) the (?:parent|main) process", 2, key=True),
         # a module the parent created or put on sys.path at run time, missing in the child
         text(near(r"ModuleNotFoundError: No module named", r"reduction\.pickle\.load\(from_parent"
                   r"\)|spawn_main|_ForkingPickler\.loads|\bpickle\.loads?\(", 1500), 3, key=True),
         # "collate_fn doesn't apply changes in presets", "hparams changes NOT applied"
         text(near(r"\b(?:does ?n'?t|do ?n'?t|not|never)\s+(?:apply|see|get|receive|pick up)\s+"
                   r"(?:the\s+)?(?:changes?|updates?|new values?)|\b(?:changes?|hparams|settings?|"
                   r"values?|presets?|config\w*)\b[^.\n]{0,30}\b(?:not|n't|never)\s+(?:be\s+)?"
                   r"(?:applied|reflected|propagated|picked up)|\bnot affected by",
                   r"collate_fn|\bworkers?\b|__getitem__|\bdataset\b", 200), 2, key=True),
         # "_frontend for worker processes didn't got assigned"
         text(near(r"\bworker(?:s| process(?:es)?)\b", r"(?:did ?n\W?t|not|never)\s+(?:\w+\s+)?"
                   r"(?:assigned|initiali[sz]ed|set up)\b", 60), 2, key=True)),
        "with spawn or forkserver (Windows, macOS, Python 3.14+ Linux) a worker imports the "
        "modules afresh and unpickles only the dataset: globals, singletons, monkey-patches or "
        "weights the parent set up at run time are back at their import-time defaults",
        "print the setting inside worker_init_fn: it shows the default, not the parent's value",
        "keep the state on the dataset object (it is pickled to each worker), or redo the "
        "set-up in worker_init_fn; multiprocessing_context='fork' where fork is safe",
        priority=65, explains=("dataset_not_registered",), probes=("startmethod",)),
    Signature(
        "spawn_reimport_side_effect", "spawned workers re-run code that runs on import",
        # a fresh interpreter per worker imports the main module and its imports again
        (text(near(r"\bMPI_Init\w*|\bmpi4py\b", r"\bworkers?\b|data ?loader|\bspawn\w*", 500), 3,
              key=True),
         text(near(r"\bre-?import\w*|\bimport[- ]time\b|\bon import\b|\bat import\b",
                   r"\bspawn\w*\b[^.\n]{0,60}\b(?:workers?|child\w*|process\w*)\b"
                   r"|\b(?:workers?|child\w*)\b[^.\n]{0,60}\bspawn\w*", 300), 2, key=True),
         text(r"(?i)\bside[- ]effects?\b", 1),
         # a line of the main script seen once per worker ("prints it 8 times")
         text(near(r"\b(?:print\w*|log\w*|initiali[sz]\w*|creat\w*|execut\w*|runs?)\b[^.\n]{0,60}"
                   r"\b(?:\d+|several|multiple|many|n) times\b|\bonce (?:per|for each|in each) "
                   r"(?:worker|process)\b|\b(?:every|each) batch \* (?:the )?number of workers",
                   r"num_?work\w*|num-workers|\bworkers\b", 300), 4, key=True)),
        "under spawn or forkserver each worker is a fresh interpreter that imports the main "
        "module and what it imports: code that runs at import (MPI_Init from `from mpi4py "
        "import MPI`, a device or CUDA set-up, a logger or run tracker, reading arguments) "
        "runs again in every worker, where it may fail or must not run",
        "`python -c \"import multiprocessing as mp; mp.set_start_method('spawn'); "
        "import your_module\"` in a child shows the side effect",
        "move the side effect under `if __name__ == '__main__':` or into a function called by "
        "the main process only (mpi4py: mpi4py.rc.initialize = False before importing MPI); "
        "keep modules the dataset imports free of work at import",
        priority=70, probes=("startmethod",), context=ABOUT_LOADING),
    Signature(
        "unpicklable_object", "the dataset holds an object that cannot be pickled",
        (text(r"cannot pickle '(?P<type>[^']+)' object", 4, key=True),
         text(r"(?i)can'?t pickle (?P<type>[\w.]+) objects?\b", 4, key=True),
         text(r"(?P<type>[\w.]+) objects? cannot be pickled", 4, key=True),
         # a DataLoader iterator kept on the dataset (torch's iterators refuse pickling)
         text(r"cannot be pickled'?,\s*'(?P<type>_\w*DataLoaderIter)'", 4, key=True),
         text(r"Can't pickle <[^>]*(?:TextIOWrapper|BufferedReader|Connection|lock)[^>]*>", 4,
              key=True),
         # an object whose class pickle cannot find again under its own name (made at run time)
         text(r"Can't pickle <class '[\w.]+'>: attribute lookup [\w.]+ on [\w.]+ failed", 3,
              key=True),
         # told in words: "Openslide objects are not serializable"
         text(near(r"\b(?:not|non-?|un)[ -]?(?:seriali[sz]able|pickl(?:e)?able)\b|\bcan(?:'?t|not)"
                   r" be (?:seriali[sz]ed|pickled)", r"\bobjects?\b|\bhandles?\b|\bconnections?\b"
                   r"|\benvironments?\b|\bfiles?\b|\blocks?\b", 60), 3, key=True),
         text(PICKLE_WARNING, 2, key=True)),
        "under spawn/forkserver the dataset is pickled for each worker; it holds an open "
        "file, a lock, a database/LMDB environment, a module or similar that cannot be pickled",
        "`loadertune doctor module:dataset` names the attribute that fails to pickle",
        "open files and connections lazily inside each worker (on first __getitem__ or in "
        "worker_init_fn), or drop them in __getstate__",
        priority=84, probes=("pickling",)),
    Signature(
        "spawn_pickle_failed", "a spawned worker never received the dataset (EOFError)",
        (exc(r"EOFError: Ran out of input", 2, key=True),
         text(r"EOFError: Ran out of input", 1, key=True),
         text(r"reduction\.pickle\.load\(from_parent\)", 1),
         frame(r"popen_spawn_win32\.py in __init__$", 1.5, key=True),
         text(r"reduction\.dump\(process_obj", 1),
         text(r"ForkingPickler?\(file,\s*protocol\)\.dump\(obj\)", 1.5),
         text(r"(?m)^BrokenPipeError\s+Traceback \(most recent call last\)", 1, key=True),
         text(r"Exiting due to exception: '__getstate__'|'__getstate__'", 1),
         exc(r"BrokenPipeError", 1, key=True),
         text(PICKLE_ERROR, -5),
         text(r"pickle data was truncated", -2),  # the parent died mid-write: memory
         WINDOWS, NUM_WORKERS_ZERO_WORKS, WINDOWS_WITHOUT_WORKERS),
        "with spawn (always on Windows) the parent pickles the dataset, collate_fn and "
        "worker_init_fn for each worker; pickling failed in the parent, so the child read an "
        "empty pipe: EOFError / BrokenPipeError is the echo, the real error is the parent's",
        "`loadertune doctor module:dataset` pickles the dataset and names the attribute "
        "that fails",
        "make the dataset picklable: module-level functions, open files/handles lazily in "
        "the worker; or num_workers=0",
        priority=60, probes=("pickling", "startmethod"), min_score=1.5),
    Signature(
        "spawn_dataset_copies", "a spawned worker ran out of memory unpickling its dataset copy",
        # the child's MemoryError in spawn's pickle.load: each worker rebuilds the dataset
        (text(r"pickle\.load\(from_parent\)\s*\n(?:[^\n]*\n){0,2}?\s*MemoryError\b", 4,
              key=True),
         text(near(r"\bMemoryError\b", r"spawn_main|spawn\.py", 600), 2.5, key=True),
         WINDOWS),
        "with spawn (always on Windows, macOS by default) each worker receives the dataset "
        "pickled and rebuilds it in its own memory: a dataset that holds its data in memory "
        "(arrays, lists of decoded samples) is copied once per worker, and a worker ran out "
        "of memory while unpickling its copy; the main process then sees a broken pipe",
        "`python -c \"import pickle; from train import dataset; "
        "print(len(pickle.dumps(dataset)) >> 20, 'MiB per worker')\"` times num_workers "
        "against the free memory",
        "keep the data on disk and load per item in __getitem__ (paths, np.load(mmap_mode="
        "'r'), LMDB), or hold it in a shared tensor; fewer workers; on Linux fork shares the "
        "parent's pages instead of copying them",
        priority=80, probes=("memory", "startmethod"),
        explains=("spawn_pickle_failed", "worker_exited")),
    Signature(
        "pickle_drops_state", "the dataset's state is lost when it is pickled for the workers",
        # pickling succeeds, but a member comes back empty or without part of its state
        (text(near(r"\bpickl\w*|__reduce\w*__|__getstate__",
                   r"\b(?:los[te]s?|losing|dropp\w*|(?:are|is|were|was|get|gets|got) not "
                   r"(?:being )?(?:pickled|preserved|kept|carried|copied)|comes? back empty"
                   r"|(?:is|are|was|were) empty)\b", 120), 3, key=True),
         text(near(r"multiprocessing_context\s*=\s*['\"]?spawn|\bspawn (?:context|start method|"
                   r"mode)\b",
                   r"\b(?:are|is) (?:lost|ignored|not applied|missing|gone)\b", 300), 2.5,
              key=True),
         # dill (used by DataPipes when installed) pickles a function by value without the
         # module globals it reads: a NameError in the worker
         text(near(r"\bdill\b", r"\bNameError\b|is not defined", 3000), 3, key=True),
         text(PICKLE_ERROR, -3)),
        "under spawn or forkserver each worker gets the dataset through pickle; an object in "
        "it pickles without an error but comes back without part of its state (a custom "
        "__reduce__ or __getstate__ that leaves a field out, an index that pickles empty such "
        "as an rtree index): the workers' copy differs from the main process's, so samples "
        "come out untransformed or lookups find nothing",
        "`pickle.loads(pickle.dumps(dataset))[0]` against `dataset[0]`: they differ",
        "make the object pickle whole (a __getstate__/__setstate__ or __reduce__ that keeps "
        "the state, or rebuild it in __setstate__ from the arguments it was made from), or "
        "upgrade the library that dropped it; fork (Linux) copies memory and does not pickle",
        priority=75, probes=("startmethod",), context=ABOUT_LOADING),
)
