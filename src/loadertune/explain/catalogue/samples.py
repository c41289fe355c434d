"""One sample's reading and transforms: files that are not what they seem (Git LFS
pointers, images over Pillow's limit, text in another encoding, pickled arrays, non-ASCII
paths, network mounts), decoders without a backend, and transforms that refuse a sample."""

from __future__ import annotations

from loadertune.explain.normalize import CJK
from loadertune.explain.signature import Signature, near, text

# a media decoder finding no audio or video in the file (ffmpeg, libsndfile, audioread)
UNREADABLE_MEDIA = (r"Invalid data found when processing input|Audio type not supported"
                    r"|File contains data in an unknown format|Format not recognised")

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "transform_input_type", "a transform got a type it does not take",
        (text(r"pic should be PIL Image or ndarray\. Got|img should be PIL Image\. Got"
              r"|pic should be (?:2|2/3) dimensional\. Got|Unexpected type <class", 4, key=True),
         text(r"(?i)\bto_?tensor\b|\btransforms?\b", 0.5),
         text(near(r"cannot unpack non-iterable builtin_function_or_method object",
                   r"\w*Crop\b|\bResize\b|ToTensor|transforms", 1500), 3, key=True)),
        "a torchvision transform in __getitem__ got an input type it does not accept: "
        "ToTensor given something that is already a tensor (a dataset or an earlier "
        "transform made it one), PIL-only functions given tensors (torchvision < 0.8), or "
        "an array of the wrong number of dimensions",
        "print(type(x), getattr(x, 'shape', None)) for the value just before the transform",
        "order the transforms so each gets what it takes (PIL/ndarray ops before ToTensor, "
        "ToTensor once), drop ToTensor for inputs that are tensors already, or upgrade "
        "torchvision for tensor support",
        priority=86, explains=("worker_exception", "collate_unsupported_type")),
    Signature(
        "normalize_channel_mismatch", "Normalize's mean/std do not match the images' channels",
        (text(r"output with shape \[1, \d+, \d+\] doesn'?t match the broadcast shape "
              r"\[3, \d+, \d+\]", 4, key=True),
         text(r"The size of tensor a \((?:1|2|4)\) must match the size of tensor b \(3\) at "
              r"non-singleton dimension 0", 3, key=True),
         text(r"tensor\.sub_\(mean\[:, None, None\]\)|\bNormalize\(", 1)),
        "transforms.Normalize has one mean/std per channel it was given (three for RGB), and "
        "the images have another number: grayscale (MNIST, 1 channel) or RGBA/png with alpha "
        "(4), so the per-channel broadcast fails for every sample",
        "print(dataset[0][0].shape): its first dimension is the channel count",
        "give Normalize one value per channel (Normalize([0.5], [0.5]) for grayscale), or "
        "convert the images first (img.convert('RGB'), transforms.Grayscale(3))",
        priority=86, explains=("worker_exception",)),
    Signature(
        "image_pixel_limit", "an image is larger than Pillow's decompression-bomb limit",
        (text(r"DecompressionBombError|DecompressionBombWarning|exceeds limit of \d+ pixels, "
              r"could be decompression bomb", 4, key=True),
         text(r"MAX_IMAGE_PIXELS", 1)),
        "Pillow refuses to open an image with more pixels than Image.MAX_IMAGE_PIXELS (about "
        "89 million; twice that raises, above it warns), a guard against decompression "
        "bombs that real large images (slides, satellite tiles, scans) trip as well",
        "print(Image.open(path).size) for the file the error names (opening reads only the "
        "header)",
        "raise the limit for trusted data (PIL.Image.MAX_IMAGE_PIXELS = None or a bound, set "
        "in the dataset module so spawned workers get it too), or tile / downscale the "
        "large images beforehand",
        priority=86, explains=("worker_exception",)),
    Signature(
        "git_lfs_pointers", "the data files are Git LFS pointers, not the data",
        (text(r"(?i)\bgit[- ]lfs\b|\bLFS pointers?\b|version https://git-lfs", 2.5, key=True),
         text(r"file signature not found|invalid load key, 'v'|not a zip file|"
              r"cannot identify image file", 1.5),
         text(near(r"\bclon\w*\b|\bcheckout\b", r"\b(?:small|tiny|\d+ bytes?|134 bytes)\b",
                   200), 1),
         # files broken by the clone itself, fine when downloaded one by one
         text(near(r"\bgit clone\b|\bclon(?:ed|ing)\b", r"\bcorrupt\w*|file signature not found"
                   r"|invalid load key", 300), 2.5, key=True),
         # media no decoder reads, in a repository's zip download ("name-master/") or
         # told as files without a header: text pointers where the audio should be
         text(near(UNREADABLE_MEDIA, r"[\w.]+-(?:master|main)/", 300), 2.5, key=True),
         text(near(r"\b(?:no|without|don'?t have|missing|lacks?) (?:a |the |any )?headers?\b",
                   r"\bwav\b|\baudio\b|\.(?:wav|flac|mp3)\b", 150), 1.5, key=True),
         text(UNREADABLE_MEDIA, 1)),
        "the repository keeps its data (or weights) in Git LFS and was cloned without git-lfs: "
        "each file on disk is a ~130-byte text pointer ('version https://git-lfs...'), so "
        "h5py finds no signature, torch.load reads an invalid key 'v', PIL no image",
        "head -c 200 on one of the files: a pointer starts with 'version https://git-lfs'",
        "install git-lfs and fetch the data (git lfs install && git lfs pull), or download "
        "the files from the hosting page",
        priority=86, explains=("worker_exception", "hdf5_file_lock", "shared_file_handle")),
    Signature(
        "platform_default_encoding", "a text file read with the platform's encoding, not UTF-8",
        (text(r"UnicodeDecodeError: 'charmap' codec can'?t decode|UnicodeDecodeError: 'gbk' "
              r"codec can'?t decode|UnicodeDecodeError: 'cp\d+' codec", 4, key=True),
         text(r"(?i)encoding\s*=\s*['\"]utf-?8['\"]", 1)),
        "open() without encoding= uses the platform's default (cp1252 on Windows, GBK on a "
        "Chinese-locale Windows): a UTF-8 JSON, CSV or caption file read in the dataset "
        "fails on the first byte that encoding does not map",
        "python -c \"import locale; print(locale.getpreferredencoding())\" (not UTF-8)",
        "open text files with encoding='utf-8' in the dataset, or run Python in UTF-8 mode "
        "(PYTHONUTF8=1)",
        priority=86, explains=("worker_exception",)),
    Signature(
        "numpy_allow_pickle", "np.load refuses pickled object arrays",
        (text(r"Object arrays cannot be loaded when allow_pickle=False", 4, key=True),
         text(r"Cannot load file containing pickled data when allow_pickle=False", 4, key=True)),
        "numpy 1.16.3 made np.load(allow_pickle=False) the default: a .npy/.npz file holding "
        "object arrays (lists, dicts, ragged arrays saved with np.save) no longer loads",
        "np.load(path, allow_pickle=True).dtype is object",
        "np.load(path, allow_pickle=True) for files you trust, or save plain numeric arrays "
        "instead of object arrays",
        priority=86, explains=("worker_exception",)),
    Signature(
        "non_ascii_path_imread", "OpenCV cannot open a path with non-ASCII characters on "
        "Windows",
        (text(near(r"imread|Image Not Found|cv2|\bcv\.",
                   rf"[{CJK}][^'\"\n]{{0,40}}?\.(?:jpe?g|png|bmp|tiff?)\b"
                   r"|中文路径|中文文件"
                   r"|non-ASCII|Chinese (?:characters|path|file ?name)", 300), 3.5, key=True),),
        "on Windows cv2.imread opens paths through the ANSI code page and cannot open a path "
        "with characters outside it (Chinese, Japanese, accented names): it returns None "
        "without an error, and the dataset fails later (an 'Image Not Found' assert, None "
        "has no attribute 'shape', resize or cvtColor on an empty image)",
        "cv2.imread(path) is None for that file while os.path.exists(path) is True",
        "read the bytes and decode them (cv2.imdecode(np.fromfile(path, dtype=np.uint8), "
        "cv2.IMREAD_COLOR)), use PIL, or rename files and folders to ASCII",
        priority=86, explains=("worker_exception",)),
    Signature(
        "network_mount_limits", "the data sits on a mount without local-disk features",
        (text(near(r"\[Errno 95\] Operation not supported|Transport endpoint is not connected",
                   r"\bdrive\b|/content/|\bfuse\b|s3fs|gcsfuse|\bmount\w*", 600), 3.5,
              key=True),),
        "the dataset is read from a network or FUSE mount (Google Drive in Colab, s3fs, "
        "gcsfuse): it lacks local-disk features (symlinks fail with Errno 95, file locks) "
        "and can drop the connection under many parallel reads",
        "mount | grep the data path: a fuse or network file system",
        "copy the data to local disk first (Colab: /content), or avoid symlinks and locks on "
        "the mount",
        priority=84, explains=("worker_exception",)),
    Signature(
        "crop_larger_than_image", "a random crop is larger than some of the images",
        (text(r"The size of the proposed random crop ROI is larger than the image size", 4,
              key=True),
         text(r"Required crop size \(\d+, ?\d+\) is larger than (?:the )?input image size", 4,
              key=True),
         text(r"Requested crop size \(\d+, ?\d+\) is larger than the image size", 4, key=True),
         # the crop's random offset drawn from an empty range: the window does not fit
         text(near(r"empty range for randrange\(\)", r"\bcrop\w*|\bpatch\w*|\bsampler\b"
                   r"|bounding_box", 1500), 3, key=True),
         # TorchIO's label sampler keeps patch centres half a patch from the border: with a
         # patch that large, a non-empty label map has no centre left
         text(near(r"Empty probability map found", r"\bpatch_size\b|\bpatch size\b|"
                   r"\bLabelSampler\b|\bWeightedSampler\b", 600), 2, key=True),
         # told in words
         text(near(r"\bcrop(?:ping)? size\b|\bspatial_size\b|\brandom ?crop\w*",
                   r"\b(?:larger|bigger|greater) than (?:the )?(?:input )?(?:image|volume)s?\b",
                   200), 2.5, key=True)),
        "the crop size (RandomCrop's size, MONAI's spatial_size/roi_size, albumentations' "
        "height/width) is larger than some images or volumes of this dataset, often "
        "settings copied from a tutorial written for larger data; the crop cannot fit, so "
        "the transform refuses that sample (TorchIO's label sampler, which centres patches "
        "at least half a patch from the border, finds no centre and calls the map empty)",
        "print the smallest image (volume) shape of the dataset against the crop size",
        "crop no larger than the smallest image, or pad first (torchvision "
        "RandomCrop(pad_if_needed=True), MONAI SpatialPadd before the crop, albumentations "
        "PadIfNeeded)",
        priority=85, explains=("worker_exception",)),
    Signature(
        "audio_backend_missing", "the audio library has no decoder for this file",
        (text(r"Couldn'?t find appropriate backend to handle uri", 4, key=True),
         text(r"No audio I/O backend is available", 4, key=True),
         text(r"PySoundFile failed\. Trying audioread instead", 3, key=True),
         text(r"(?i)\blibsndfile\b|\bsoundfile\b|\baudioread\b|\bsox\b|\bffmpeg\b", 0.5)),
        "the audio library cannot decode the file with what is installed: torchaudio finds "
        "no I/O backend (soundfile, sox or FFmpeg libraries), or libsndfile was built "
        "without FLAC/MP3 (soundfile releases before 0.12 bundle one without MP3), so "
        "librosa falls back to audioread (slow, and it warns for every file) or fails",
        "python -c \"import torchaudio; print(torchaudio.list_audio_backends())\" and "
        "python -c \"import soundfile; print(soundfile.__libsndfile_version__, "
        "soundfile.available_formats())\"",
        "pip install soundfile (a release that bundles a libsndfile with FLAC and MP3), or "
        "install FFmpeg for torchaudio; convert the files to WAV/FLAC once if the backend "
        "cannot be changed",
        priority=84, explains=("worker_exception",)),
    Signature(
        "macos_metadata_files", "macOS metadata files sit among the data files",
        (text(r"[/\\]\._[^/\\\s\"']+\.(?:nii(?:\.gz)?|gz|jpe?g|png|tiff?|bmp|wav|flac|mp3|mp4|npy"
              r"|h5|txt|json|dcm)\b", 3, key=True),
         text(r"\.DS_Store\b|__MACOSX\b", 2.5, key=True),
         text(r"(?i)cannot identify image file|Unable to determine ImageIO reader|not a gzipped "
              r"file|UnidentifiedImageError|could not read", 1)),
        "macOS writes '._name' AppleDouble files (resource forks) next to each file on "
        "non-Mac volumes and in archives, and '.DS_Store' in every folder (zips made on a Mac "
        "add __MACOSX/): a glob for the data's extension picks them up as samples, and no "
        "reader can decode them",
        "find DATA_DIR -name '._*' -o -name .DS_Store -o -name __MACOSX | head",
        "delete them (find DATA_DIR -name '._*' -delete; dot_clean on a Mac), unpack "
        "archives without them, and skip hidden files when listing samples",
        priority=86, explains=("worker_exception", "label_out_of_range")),
    Signature(
        "image_processor_channels", "the image processor cannot tell the channel axis",
        (text(r"Unable to infer channel dimension format", 4, key=True),
         text(r"Unsupported number of image dimensions: \d", 3.5, key=True)),
        "Hugging Face image processors find the channel axis by its size (1 or 3, first or "
        "last): an RGBA or RGBD image (4 channels), a multi-band array (6 channels), or a "
        "2-D grayscale array with no channel axis at all cannot be placed",
        "print(np.asarray(image).shape) for the image the processor gets",
        "convert to RGB first (image.convert('RGB')), add the channel axis (x[..., None]), "
        "pass input_data_format= explicitly, or reduce extra bands before the processor",
        priority=84, explains=("worker_exception",)),
    Signature(
        "caption_files_not_found", "the caption files are not where or as the trainer looks",
        (text(r"No caption file found for \d+ images", 4, key=True),
         text(r"(?i)caption_extension|\.caption\b", 1)),
        "the trainer reads one caption file per image, same name with its caption "
        "extension (sd-scripts: .caption unless caption_extension is set), in the image's "
        "folder; captions saved as .txt, under other names or elsewhere are not found, and "
        "training goes on with the folder's class token only",
        "ls one image folder: each image needs NAME + the caption extension beside it",
        "set the caption extension to the files' (--caption_extension=.txt) or rename the "
        "files",
        priority=80),
    Signature(
        "dataset_name_pattern", "a folder or file name does not follow the pattern parsed",
        (text(near(r"invalid literal for int\(\) with base 10: '[^'\n]*[ _\-a-zA-Z][^'\n]*'",
                   r"\.split\(['\"][_\-. ]['\"]\)|\bfolder\b|\bdir\w*\b|\bbasename\b|\bstem\b"
                   r"|os\.path|file_?name", 1500), 3, key=True),),
        "the dataset (or a trainer's folder scan) reads a number out of each folder or file "
        "name (kohya's `<repeats>_<name>` folders, a label or frame index in the file name); "
        "one name does not follow that pattern (a space instead of an underscore, an extra "
        "file or folder), and parsing it fails",
        "list the folder and look for the name in the error",
        "rename it to the expected pattern (e.g. 100_name), or skip names that do not match "
        "when listing",
        priority=78, explains=("worker_exception",)),
    Signature(
        "imagefolder_metadata_missing", "datasets' folder loader found no metadata file",
        (text(near(r"\bmetadata\.(?:json\w*|csv)\b", r"\bimagefolder\b|\baudiofolder\b"
                   r"|load_dataset", 800), 2.5, key=True),
         text(r"(?i)\bfeatures: \['image'\]|caption_column|\btext column\b", 1)),
        "datasets' imagefolder/audiofolder builds columns beyond the file (a caption, "
        "labels) from a metadata file beside the files, named exactly metadata.jsonl, "
        "metadata.csv or metadata.parquet; another name (metadata.json, .json1) or place, "
        "and the dataset has only the image column",
        "print(dataset.features) after load_dataset: only 'image' (and 'label')",
        "name the file metadata.jsonl (one JSON object per line, with file_name) next to "
        "the images",
        priority=80),
    Signature(
        "image_file_closed_before_decode", "PIL decodes an image after its file was closed",
        (text(near(r"seek of closed file|I/O operation on closed file",
                   r"PIL|Image\.py|ImageFile\.py|\.convert\(|\bimg\b", 1500), 3, key=True),),
        "Image.open reads only the header; the pixels are decoded later (convert, load, a "
        "transform). A loader that opens the image from a file object inside a with block "
        "(with open(path, 'rb') as f: img = Image.open(f)) and returns it undecoded hands "
        "on an image whose file is closed by the time it is decoded",
        "look at the dataset's image loader: Image.open(f) inside with open(...) and no "
        "img.convert()/img.load() before the block ends",
        "decode inside the block (return img.convert('RGB') there), or open by path: "
        "Image.open(path).convert('RGB')",
        priority=86, explains=("worker_exception",)),
    Signature(
        "augmentation_targets_undeclared", "the augmentation pipeline was not told what the "
        "targets it is given are",
        (text(near(r"\b(?:bbox|keypoints?)_params\b|\blabel_fields\b|\bdata_keys\b",
                   r"\bmust be specified\b|\bnot valid\b|\bmust align\b|\bnot in "
                   r"available keys\b", 200), 2, key=True),),
        "an augmentation library that moves boxes, keypoints or masks with the image must be "
        "told which inputs they are and in what format: albumentations' Compose needs "
        "bbox_params / keypoint_params (format, label_fields) for the targets passed, "
        "kornia's AugmentationSequential data_keys in the order of its inputs, and "
        "detectron2's augmentations the fields they read",
        "print the keys passed to the transform call and the Compose's bbox_params / "
        "keypoint_params (or data_keys)",
        "declare the targets: A.Compose([...], bbox_params=A.BboxParams(format='coco', "
        "label_fields=['labels'])) and pass labels=...; give kornia data_keys matching the "
        "inputs",
        priority=86, explains=("worker_exception", "transform_input_type")),
    Signature(
        "transcript_normalizer_drops_text", "text normalisation removes the transcripts' "
        "characters",
        (text(near(r"\b(?:Reference|transcripts?|labels?|targets?)\b[^.\n]{0,40}\bempty\b|"
                   r"\bempty (?:\W?Reference\W?|transcripts?|references?)\b",
                   r"\b(?:russian|chinese|arabic|hindi|cyrillic|non-english|alphabet|"
                   r"encoding|unicode)\b", 600), 2, key=True),),
        "the speech toolkit's data layer normalises each transcript to its label set before "
        "training (NeMo: normalize_transcripts, parsers that keep English letters): text in "
        "another script or with characters outside the configured labels comes out empty, "
        "so references are blank and WER infinite",
        "print a few transcripts as the dataset returns them (the manifest's text against "
        "the batch's decoded targets)",
        "turn the normalisation off or give the parser the language's alphabet (NeMo: "
        "normalize_transcripts=False and labels for the language, or a tokenizer-based "
        "model)",
        priority=84),
    Signature(
        "transform_returns_wrong_value", "a transform returns something other than the sample",
        (text(near(r"too many indices for tensor of dimension [01]\b|'int' object is not "
                   r"subscriptable|'NoneType' object is not subscriptable",
                   r"\b(?:sample|batch|data)\[\s*['\"]\w+['\"]\s*\]", 300), 2, key=True),),
        "a custom transform (or __getitem__ itself) returns something other than the sample "
        "it was given (return 0 left in, a missing return, the wrong variable), so the "
        "loader collates numbers or None and the training loop's sample['input'] indexes "
        "a 1-D tensor or nothing",
        "print(dataset[0]) and check each transform's return value on one sample",
        "return the (transformed) sample from every transform's __call__ and from "
        "__getitem__",
        priority=84),
)
