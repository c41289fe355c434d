"""Shared memory: /dev/shm full or missing, torch's shm manager, tensors that cannot be shared."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING, CONTAINER, SHM_FIX, WORKER_SIGNAL
from loadertune.explain.signature import Signature, exc, frame, near, phrase, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "shm_exhausted", "shared memory (/dev/shm) is full",
        (text(r"unable to allocate shared memory\(shm\) for file <[^>]*>", 4, key=True),
         text(r"unable to write to file\s*<[^>\n]*torch", 3, key=True),
         text(r"unable to (?:open|mmap)[^\n]*(?:torch_|shared memory)[^\n]*No space left",
              3, key=True),
         # the message without its errno (a title, a cut log): a full /dev/shm is the other
         # reading, after the open-file limit
         text(r"unable to open shared memory object \S+ in read-write mode(?!: )", 1.5, key=True),
         text(r"(?i)too many open files|\[Errno 24\]", -2.5),
         text(r"No space left on device[^\n]*/dev/shm|/dev/shm[^\n]*No space left", 3,
              key=True),
         exc(r"OSError: \[Errno 28\] No space left on device", 1.5, key=True),
         text(r"No space left on device", 0.5, key=True),
         text(r"unable to write to file\s*<[^>\n]*torch[^>\n]*>: No space left on device", 2.5),
         # /dev/shm too small, told in prose (no message: a screenshot, a question)
         text(r"(?i)(?:ran|run|running|runs) out of shared memory|(?:low|not enough|limited|"
              r"small) shared memory|shared memory (?:is |was )?(?:too )?(?:full|exhausted|small"
              r"|low)"
              r"|/dev/shm (?:is |was )?(?:full|too small)|df -h /dev/shm", 2, key=True),
         text(near(r"shared memory|/dev/shm|\bshm\b", r"\binsufficient\b|\bnot enough\b|\btoo "
                   r"small\b|\bfills? up\b", 60), 2, key=True),
         text(r"(?i)/dev/shm\b[^.\n]{0,20}\b(?:is |at |of )*only\s+\d+\s*(?:M|MB|MiB|G|GB)\b", 2.5,
              key=True),
         # /dev/shm at Docker's 64 MB: in words, or in a `df -h` table
         text(near(r"/dev/shm|shared memory", r"\b(?:set to|limited to|defaults? to|is|of|only)\s+"
                   r"64\s*(?:M|MB|MiB)\b", 80), 2.5, key=True),
         text(r"(?m)^\s*(?:shm|tmpfs|none)\s+\d+(?:\.\d+)?M\s+\S+\s+\S+\s+\S+\s+/dev/shm\s*$", 2.5,
              key=True),
         # a container that fails only with workers: /dev/shm (64 MB by default) before all else
         text(near(r"\bdocker\b|\bcontainer\b|kubernetes|\bk8s\b|\bpod\b",
                   r"num_?workers\s*(?:>|>=)\s*[01]\b|\bnum_?workers\s*=\s*[1-9]", 150), 1.5,
              key=True),
         text(r"_multiprocessing\.SemLock|SemLock\.__init__", 1),
         # the write failed while a worker put a tensor's storage into shared memory
         frame(r"reductions\.py in reduce_storage$", 1),
         frame(r"synchronize\.py in __init__|context\.py in (?:Lock|RLock|Semaphore|Queue)", 0.5),
         CONTAINER),
        "a worker (or the queue between workers and the main process) could not create its "
        "shared-memory file or semaphore: /dev/shm is full or tiny (Docker's default is 64 MB); "
        "the disk itself may have plenty of room",
        "`loadertune doctor --probe shm` (size and free space of /dev/shm against what the "
        "workers put in flight)",
        SHM_FIX, priority=95, probes=("shm",)),
    Signature(
        "bus_error_shm", "bus error: workers out of shared memory",
        (text(WORKER_SIGNAL + r"Bus\s+error", 3, key=True),
         text(phrase("Unexpected bus error encountered in worker"), 3, key=True),
         text(phrase("insufficient shared memory (shm)"), 2, key=True),
         text(r"(?i)workers\s+are\s+out\s+of\s+shared\s+memory|raise\s+your\s+shared\s+memory"
              r"\s+limit", 2, key=True),
         # the message retyped (titles drop "encountered in worker" and "(shm)")
         text(r"(?i)unexpected bus error(?! encountered in worker)", 2.5, key=True),
         text(r"(?i)insufficient shared memory(?! \(shm\))", 1),
         # retyped: "bus error, insufficient shared memery (shm)"
         text(near(r"\bbus error\b", r"\bshared mem\w*|\(shm\)", 80), 2.5, key=True),
         text(r"(?i)--shm[-_]size|--ipc[= ]host", 1.5, key=True),
         text(r"exited unexpectedly", 1),
         # the shell's word for a process killed by SIGBUS: with torch, most often /dev/shm
         text(r"(?i)\bbus error\s*\(core dumped\)", 1.5, key=True),
         text(r"(?i)\bbus error\b", 0.5), CONTAINER),
        "a worker wrote into a shared-memory mapping that /dev/shm could not back: the "
        "tmpfs ran out of space and the kernel sent SIGBUS",
        "`loadertune doctor --probe shm` (64M in a default Docker container)",
        SHM_FIX, priority=90, probes=("shm",)),
    Signature(
        "torch_shm_manager", "torch_shm_manager could not start",
        (text(r"error executing torch_shm_manager", 4, key=True),
         text(r"torch_shm_manager", 1.5, key=True),
         text(r"(?i)macos|macosx|\bosx\b|/Users/", 0.5)),
        "the file_system sharing strategy (the default on macOS) needs the helper binary "
        "torch/bin/torch_shm_manager; it could not be executed (no execute permission, a "
        "broken or sandboxed install, a noexec mount), so workers cannot hand tensors over",
        "`ls -l \"$(python -c 'import torch, os; print(os.path.dirname(torch.__file__))')"
        "/bin/torch_shm_manager\"` (missing, or no x bit)",
        "`chmod +x` that file or reinstall torch; on a noexec filesystem install elsewhere; "
        "num_workers=0 avoids shared memory altogether",
        priority=92),
    Signature(
        "mps_tensor_sharing", "MPS tensors cannot be shared with workers",
        (text(r"_share_filename_: only available on CPU", 4, key=True),
         text(r"(?i)\bmps\b[^\n]{0,80}(?:num_workers|worker|shar|multiprocess)"
              r"|(?:num_workers|multiprocess)[^\n]{0,80}\bmps\b", 1, key=True),
         text(r"share_memory_?\(\)", 0.5),
         text(r"(?i)apple silicon|\bm[123]\b(?: max| pro)?|macos|use_mps_device", 0.5)),
        "a tensor on the Apple GPU (mps) was to be put in shared memory for another process: "
        "only CPU tensors can be shared, so the dataset (or a default device set to mps) must "
        "not hand mps tensors to workers",
        "`python -c \"import torch; print(torch.get_default_device())\"` (mps: every new "
        "tensor, the dataset's too, is made on the GPU)",
        "keep the dataset on the CPU and move batches to mps in the training loop; or "
        "num_workers=0; with spawn, don't set the default device before the loader starts",
        priority=90),
    Signature(
        "mmap_limit", "too many memory mappings: the kernel's per-process map limit",
        (text(r"unable to mmap \d+ bytes from file <?/?torch_[^>\s]*>?: Cannot allocate memory "
              r"\(12\)", 4, key=True),
         text(r"(?i)\bmax_map_count\b|\bvm\.max_map\b", 2.5, key=True),
         text(r"unable to mmap \d+ bytes", 1.5, key=True)),
        "each tensor a worker shares with the main process is one memory mapping of a shared "
        "file (file_system strategy, or a storage rebuilt from one); the kernel caps how many "
        "mappings a process may hold (vm.max_map_count, 65530 by default), and once batches "
        "(or tensors taken from them) are held in the thousands, mmap fails with ENOMEM "
        "although memory is free",
        "`cat /proc/sys/vm/max_map_count` against `wc -l /proc/<training pid>/maps`",
        "raise the limit (`sysctl -w vm.max_map_count=262144` as root, or in the container's "
        "sysctls); keep fewer batches alive (don't collect batch tensors in lists; .clone() or "
        ".numpy() what you keep), fewer workers or a smaller prefetch_factor",
        priority=88, context=ABOUT_LOADING),
    Signature(
        "xla_tensor_in_loader", "XLA (TPU) tensors reach the loader's worker set-up",
        (text(r"XLA tensors do not have storage", 3, key=True),
         frame(r"dataloader\.py in (?:__init__|__iter__|_get_iterator)$", 1),
         text(r"(?i)\bcollate_fn\b|num_workers", 0.5),
         text(r"(?i)\btorch_xla\b|\bTPU\b", 0.5)),
        "starting worker processes shares what the loader holds (the dataset, collate_fn, "
        "the sampler) with them; a tensor already on the XLA device (a model referenced by "
        "collate_fn, a dataset that keeps XLA tensors) has no CPU storage to share, so the "
        "multi-worker iterator fails before the first batch",
        "look for `.to(xm.xla_device())` (or a model) reachable from the dataset or collate_fn",
        "keep the dataset and collate_fn on the CPU (pass tokenizers and configs, not the "
        "model) and move batches with torch_xla's MpDeviceLoader; or num_workers=0",
        priority=90),
)
