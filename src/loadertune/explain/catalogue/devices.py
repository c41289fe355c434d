"""Accelerators and the platform: CUDA after fork, pinning, the Windows page file."""

from __future__ import annotations

from loadertune.explain.catalogue.common import ABOUT_LOADING, WINDOWS
from loadertune.explain.signature import Signature, frame, near, phrase, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "cuda_forked", "CUDA used in a forked worker",
        (text(phrase("Cannot re-initialize CUDA in forked subprocess"), 4, key=True),
         text(r"(?i)re-?initiali[sz]e CUDA in forked", 3, key=True),
         text(r"(?i)Cannot re-initialize \w+ in forked subprocess", 3, key=True),
         text(r"CUDA error: initialization error|cudaErrorInitializationError"
              r"|CUDA_ERROR_NOT_INITIALIZED|CUDA call failed lazily at initialization", 2,
              key=True),
         frame(r"_utils/worker\.py in _worker_loop$", 0.5),
         text(r"(?i)cuda[^\n]{0,80}initiali[sz]ation error", 2.5, key=True),
         # "runtime error: initialization error" with workers; the fork copying CUDA in words
         text(near(r"\binitiali[sz]ation error\b", r"num_?workers?|\bworkers?\b|\bfork", 300), 2,
              key=True),
         text(near(r"\bfork\w*", r"\bcuda (?:context|state|runtime|init\w*)", 100), 2, key=True),
         text(r"torch\.cuda\.\w+Tensor|\.cuda\(\)|device=['\"]cuda", 0.5),
         text(r"(?i)\.cuda\(\)[^\n]{0,60}forked|forked[^\n]{0,60}\.cuda\(\)", 2, key=True),
         # pinning inside the workers (a collate_fn or dataset that pins) touches CUDA there
         text(near(r"\bpin\w*[ _]?memory[^.\n]{0,80}\b(?:collate_fn|__getitem__|workers?)\b",
                   r"\bcuda (?:runtime )?error\b|\bcudaError", 400), 2, key=True),
         # the worker-side collate moves a CUDA sample into a shared CPU storage
         text(r"(?i)storage of a tensor on device \W?cuda[^\n]{0,80}different device \W?cpu",
              3, key=True),
         text(r"(?i)(?:tensor|dataset)[^\n]{0,40}on (?:the )?GPU|device=torch\.device\("
              r"'cuda'\)|map_location", 0.5)),
        "CUDA was initialised in the parent and a forked worker (the default on Linux) used "
        "CUDA again: a CUDA context cannot survive fork",
        "`loadertune doctor train.py --probe cuda` (flags CUDA initialised before the "
        "workers fork)",
        "return CPU tensors from the dataset and move batches to the GPU in the training loop "
        "(pin_memory=True + .to(device, non_blocking=True)); load with map_location='cpu'; or "
        "multiprocessing_context='spawn'",
        priority=95, probes=("cuda",)),
    Signature(
        "cuda_ipc_unsupported", "CUDA tensors cannot be shared between processes here",
        # CUDA IPC (cudaIpcGetMemHandle) is not offered on Windows, nor on Jetson/Tegra
        (text(r"StorageSharing\.cpp", 2, key=True),
         text(r"cuda runtime error \(801\)|error=63 : OS call failed or operation not supported"
              r"|cudaErrorNotSupported", 2.5, key=True),
         text(r"(?i)CUDA IPC\b[^\n]{0,60}(?:not (?:be )?supported|unsupported)", 3, key=True),
         text(r"(?i)operation not supported", 0.5),
         text(r"_share_cuda_|rebuild_cuda_tensor", 1),
         text(r"(?i)\bjetson\b|\btegra\b", 1),
         WINDOWS),
        "a worker (or the main process) sends a CUDA tensor to another process, which needs "
        "CUDA IPC; Windows and Jetson/Tegra do not offer it, so sharing the tensor's storage "
        "fails ('operation not supported')",
        "`print(dataset[0])`: a tensor on device='cuda' leaves a worker through that path",
        "return CPU tensors from the dataset and collate_fn and move each batch to the GPU in "
        "the training loop (pin_memory=True, .to(device, non_blocking=True)); or "
        "num_workers=0 when the data must be made on the GPU",
        priority=90, probes=("cuda",)),
    Signature(
        "pin_memory_thread", "the pin-memory thread failed",
        (text(r"Pin memory thread exited unexpectedly", 3, key=True),
         text(r"in pin memory thread for device \d+", 3, key=True),
         frame(r"in _pin_memory_loop$", 1.5, key=True),
         # torch 1.7: the thread reads the closed queue of persistent workers at an epoch's end
         # (told also when the frame's path is wrapped)
         text(near(r"\b_pin_memory_loop\b", r"not enough values to unpack \(expected 2, got 0\)",
                   600), 3, key=True),
         # told in words (torch's own message, above, is not counted twice)
         text(r"(?i)pin[ _]?memory thread (?:has )?(?:exited|died|crash\w*|fail\w*)"
              r"(?! unexpectedly)", 2, key=True),
         # told in words: the error goes away with pinning off
         text(r"(?i)pin[ _]?memory\s*(?:is\s+)?(?:set\s+)?(?:to\s+|=\s*)?false\W{0,3}"
              r"(?:\w+\W+){0,4}?(?:no (?:error|problem|crash)|(?:it )?works?\b|fix\w*|"
              r"solv\w*)", 2, key=True)),
        "the thread that copies batches into page-locked memory died: CUDA out of memory or "
        "a CUDA error while pinning, a batch type it cannot pin, or a shared-memory file "
        "that vanished before it was read (file_system strategy); in torch 1.7 with "
        "persistent_workers=True it also read the workers' closed queue at an epoch's end "
        "(not enough values to unpack), fixed in 1.8",
        "rerun with pin_memory=False: the error goes away when pinning is the cause",
        "set pin_memory=False, or free GPU memory / lower the batch size; give custom batch "
        "types a pin_memory() method; on torch 1.7 with persistent workers, upgrade torch",
        priority=75, probes=("cuda",)),
    Signature(
        "pin_memory_cuda_tensor", "pin_memory on tensors already on the GPU",
        (text(r"cannot pin '(?P<tensor>torch\.cuda\.\w+)'", 4, key=True),
         text(r"only dense CPU tensors can be pinned", 3, key=True),
         frame(r"pin_memory\.py in pin_memory$", 0.5)),
        "pin_memory=True asks the loader to page-lock each batch, which only CPU tensors can "
        "be; the dataset or collate_fn already returns CUDA tensors",
        "`print(dataset[0])` shows device='cuda:0'",
        "return CPU tensors and move batches in the training loop, or set pin_memory=False",
        detail="the batch holds a {tensor}", priority=88, probes=("cuda",)),
    Signature(
        "pin_memory_no_accelerator", "pin_memory=True without an accelerator",
        (text(phrase("'pin_memory' argument is set as true but no accelerator is found"), 3,
              key=True),
         # the same warning on a device that cannot pin (MPS) in other torch versions
         text(r"'pin_memory' argument is set as true but not supported on \w+", 3, key=True),
         # pin_memory() called directly on a machine without CUDA (an Apple Silicon Mac)
         text(r"Could not run 'aten::_pin_memory' with arguments from the 'CUDA' backend", 3.5,
              key=True),
         # the warning retyped (typos and all) or told in words
         text(near(r"pin.?memory", r"\bno[nt]?[- ](?:accelerator|gpu|cuda)\b|\bwithout (?:an? )?"
                   r"(?:accelerator|gpu|cuda)\b|\bcpu[- ]only\b", 80), 2.5, key=True),
         text(r"(?i)pin.?memory\W+(?:is\s+)?set\W+(?:to\W+|as\W+)?true\W+(?:for|on|with)\W+"
              r"(?:a\W+)?cpu\b", 2.5, key=True),
         # torch before the warning: pinning a batch on a CPU-only build asserted at next()
         text(near(r"next\([^)\n]*(?:iter|loader)|pin_memory",
                   r"Torch not compiled with CUDA enabled", 300), 3, key=True)),
        "pin_memory=True on a machine without CUDA/XPU: torch ignores it and warns (before "
        "1.x releases warned, fetching a batch asserted 'Torch not compiled with CUDA "
        "enabled')",
        "`loadertune doctor --probe cuda`",
        "pin_memory=torch.cuda.is_available()", priority=40, probes=("cuda",)),
    Signature(
        "windows_pagefile", "Windows: the page file is too small for the workers",
        (text(r"(?i)paging file is too small|page file is too small", 4, key=True),
         text(r"WinError 1455|os error 1455|error code: ?<?1455\b", 4, key=True),
         text(r"页面文件太小", 4, key=True),
         # told in words: the page file fills up (or is used) while RAM is still free
         text(near(r"(?:page|paging) ?file", r"free (?:ram|memory)|run(?:ning)? out|out of "
                   r"(?:space|memory)|grow\w*|fill\w*", 120), 2.5, key=True),
         text(r"(?i)DLL load failed", 0.5),
         frame(r"spawn\.py in (?:spawn_main|_main|prepare)$", 0.5),
         WINDOWS),
        "on Windows every worker is a new process that imports torch and its CUDA DLLs; "
        "Windows reserves (commits) their full size up front, so a few workers exhaust RAM + "
        "page file even when little memory is really used",
        "`Get-CimInstance Win32_PageFileUsage` in PowerShell (AllocatedBaseSize, MB) against "
        "about 2 GB per worker",
        "lower num_workers (try 2), let Windows manage a larger page file (or raise it by "
        "hand and reboot), close other programs",
        priority=93, probes=("memory",)),
    Signature(
        "generator_device", "the sampler's generator is on the CPU, the default device is not",
        (text(r"Expected a '(?P<device>[\w:]+)' (?:device type for generator|generator "
              r"device) but found '[\w:]+'", 4, key=True),
         # torch 0.4: the sampler's randperm made on the default (CUDA) device
         text(r"randperm is only implemented for CPU", 3, key=True),
         text(r"(?i)set_default_(?:device|tensor_type)\(|torch\.cuda\.FloatTensor", 1),
         frame(r"sampler\.py in __iter__$", 1)),
        "torch.set_default_device('cuda') (or set_default_tensor_type with a CUDA type) makes "
        "the tensors the shuffling sampler creates land on the GPU, while the generator that "
        "draws the permutation stays on the CPU",
        "`python -c \"import torch; print(torch.get_default_device())\"` after the script's "
        "imports (cuda instead of cpu)",
        "don't set a CUDA default device for the whole program (move the model and batches "
        "with .to(device)), or pass DataLoader(generator=torch.Generator(device='cuda'))",
        detail="default device {device}", priority=90),
    Signature(
        "xla_dynamic_shapes", "XLA compiles again for every new batch shape",
        # a graph per tensor shape: a smaller last batch, or sequences padded per batch
        (text(near(r"\bTPUs?\b|torch_xla|\bxla\b", r"\blast batch\b|\brecompil\w*"
                   r"|\bdynamic shapes?\b|\b(?:different|varying|variable) (?:batch |input )?"
                   r"(?:sizes?|shapes?|lengths?)\b", 400), 3, key=True),
         text(r"CompileTime|metrics_report\(\)", 1),
         text(r"(?i)\bdrop_last\b", 0.5)),
        "XLA (TPU) traces and compiles one graph per set of tensor shapes: a last batch "
        "smaller than the rest (drop_last=False), sequences padded to each batch's longest, "
        "or images of different sizes give new shapes, and each compiles for seconds to "
        "minutes, so the loop seems to hang at the last batch or is slow every step",
        "print(torch_xla.debug.metrics.metrics_report()) after a few steps: CompileTime's "
        "count keeps growing",
        "drop_last=True; pad to one fixed length (padding='max_length') or a few bucket "
        "lengths; resize images to one size",
        priority=80, context=ABOUT_LOADING),
    Signature(
        "pin_memory_drops_subclass", "pinning turns tensor subclasses into plain tensors",
        # Tensor.pin_memory() returns a torch.Tensor, whatever subclass it was called on
        (text(near(r"pin_?memory\s*=\s*True|\bpin(?:ning|ned)?[ _]memory\b|\.pin_memory\(",
                   r"\bsubclass\w*|\bTVTensors?\b|\btv_tensors?\b|\bBoundingBoxes\b"
                   r"|\bmetadata\b|__torch_function__|\bplain (?:torch\.)?tensors?\b", 400), 3,
              key=True),
         text(r"(?i)\b(?:with(?:out)? )?(?:memory )?pinning\b", 0.5)),
        "pin_memory=True copies every tensor of a batch into page-locked memory with "
        "Tensor.pin_memory(), which returns a plain torch.Tensor: a tensor subclass "
        "(torchvision's TVTensors such as BoundingBoxes, or your own) loses its type and "
        "metadata (format, canvas_size) on the way",
        "compare type(batch) (and its metadata) with pin_memory=True and pin_memory=False",
        "a torchvision with the fix (PR #8921: pinning keeps the TVTensor class and "
        "metadata), pin_memory=False, or a custom batch type whose pin_memory() pins the "
        "data and re-wraps it",
        priority=80),
    Signature(
        "sampler_input_on_gpu", "a graph sampler's seed nodes are on the GPU, its graph on the "
        "CPU",
        (text(near(r"\bNeighbor\w*Loader\b|\binput_nodes\b|\bLinkNeighborLoader\b",
                   r"\bcuda\b|\.to\(\s*device\s*\)|\bGPU\b", 800), 1.5, key=True),
         text(r"(?i)kernel (?:appears to have )?died|restart automatically|process "
              r"finishes suddenly", 1)),
        "a neighbour sampler (PyG's NeighborLoader, DGL's samplers) samples on the CPU from "
        "the graph's CPU tensors; seed nodes or masks given to it on the GPU (input_nodes "
        "moved with .to(device) along with the data) are indexed across devices inside "
        "native sampling code, which can kill the process without a Python error (a "
        "notebook's kernel dies)",
        "print(input_nodes.device, data.edge_index.device) before building the loader",
        "keep the graph and input_nodes on the CPU for the loader and move each sampled "
        "batch to the GPU in the training loop (or put both on the GPU with a GPU sampler)",
        priority=84, probes=("cuda",)),
)
