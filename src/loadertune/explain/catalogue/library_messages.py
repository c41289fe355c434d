"""What libraries raise or warn about a user's data, in their own words, by the cause each
reports.

A known cause often reaches a user in the words of the library between them and torch (a
Trainer, a dataset hub, a detection framework) that nobody had reported yet. These are the
messages as each library's source writes them (placeholders kept), read from the source of
Hugging Face datasets 5.2, transformers 5.25, Accelerate 1.16 and Lightning 2.6 (installed)
and of torchvision, timm, MONAI, MMEngine, MMDetection, detectron2, Ultralytics,
albumentations, kornia, PyTorch Geometric, DGL, torchaudio, SpeechBrain, NeMo, fairseq,
lhotse, torchdata, webdataset, litdata, MosaicML streaming, TRL, sentence-transformers,
fastai, pytorch-forecasting, skorch, DeepSpeed, Ray, DALI, FFCV, diffusers' training scripts,
OpenCLIP, torchgeo, torchtext, LLaMA-Factory, ms-swift, axolotl, torchtune, unsloth, nnU-Net,
batchgenerators, darts, GluonTS, YOLOv5, Megatron-LM, LLaVA, OpenPCDet, mmdetection3d, YOLOX,
DETR, TorchIO, neuralforecast, pytorch-tabnet, DeepChem, LAVIS, decord, PyTorch-Ignite,
Composer, mmsegmentation, mmpose, mmaction2, mmocr, coqui TTS, ESPnet, SlowFast, pytorchvideo,
VideoMAE, OpenNMT-py, AllenNLP, RecBole, OGB and PyTorch Geometric Temporal (their
repositories), mapped to the cause each reports.
`catalogue` adds them to the entries as signals (`signature.said`): a raised message is
strong evidence on its own, a warning weak (it is printed in runs that fail for other
reasons too).
"""

from __future__ import annotations

RAISED: dict[str, tuple[str, ...]] = {
    "audio_backend_missing": (
        # datasets
        "To support decoding audio data, please install 'torchcodec'.",
        # lhotse
        "Reading audio from '{path_or_fd}' failed. Details: {type(e)}('{str(e)}')",
        "{e}\\nThe ffmpeg command for which the program failed is: '{cmd}', error code: "
        "{proc.returncode}",
        # torchaudio / SpeechBrain
        "Couldn't find appropriate backend to handle uri {uri} and format {format}.",
        "Unsupported backend '{backend_name}' specified;  please select one of "
        "{list(backends.keys())} instead.",
        "Error loading audio file: unknown encoding.",
        "Error reading audio file: unknown length.",
    ),
    "augmentation_targets_undeclared": (
        # albumentations / kornia
        "bbox_params must be specified for bbox transformations",
        "keypoints_params must be specified for keypoint transformations",
        "Key {data_name} is not in available keys.",
        "Please specify 'label_fields' in 'bbox_params' or add labels to the end of bbox "
        "because bboxes must have labels",
        "Your 'label_fields' are not valid - them must have same names as params in dict",
        "Your 'label_fields' are not valid - them must have same names as params in "
        "'keypoint_params' dict",
        "Only BxNx4x2 tensor is supported. Got {input.shape}.",
        "Only BxNx2 tensor is supported. Got {input.shape}.",
        "The number of inputs must align with the number of data_keys. Got {len(args)} and "
        "{len(data_keys)}.",
        # detectron2
        "Augmentation {aug} needs '{f}', which is not an attribute of {self}!",
    ),
    "batch_sampler_as_sampler": (
        # TorchIO
        'Index "{index}" must be int or compatible dtype, but an object of type "{type(index)}" '
        "was passed",
        # neuralforecast
        "idx must be int, got {type(idx)}",
    ),
    "chat_data_not_templated": (
        # TRL
        "prompt should be an str but got {type(prompt)}",
        "chosen should be an str but got {type(chosen)}",
        "rejected should be an str but got {type(rejected)}",
        "completion should be an str but got {type(completion)}",
    ),
    "code_assumes_batch_size_one": (
        # LLaVA
        "batch_size must be 1",
    ),
    "collate_keys_mismatch": (
        # AllenNLP
        "You cannot construct a Batch with non-homogeneous Instances. Field '{field_name}' "
        "present in some Instances but not others.",
        "You cannot construct a Batch with non-homogeneous Instances. Field '{field_name}' has "
        "{len(type_counters)} different types: {', '.join(type_counters.keys())}",
        # ESPnet
        "dict-keys mismatching",
        # dgl
        "Expect all graphs to have the same schema on {}, but graph {} got\\n\\t{}\\nwhich is "
        "different from\\n\\t{}.",
    ),
    "collate_mapping_type": (
        # TorchIO
        "A subject without images cannot be created",
    ),
    "collate_size_mismatch": (
        # FFCV
        "SimpleRGBImageDecoder only supports constant image, consider "
        "RandomResizedCropRGBImageDecoder or CenterCropRGBImageDecoder instead.",
        # OpenPCDet
        "Error in collate_batch: key=%s",
        # fastai
        "Error when trying to collate the data into batches with fa_collate, at least two "
        "tensors in the batch are not the same size. Mismatch found on axis {x} of the batch "
        "and is of type `{x}`: Item at index 0 has shape: {x} Item at index {x} has shape: {x} "
        "Please include a transform in `after_item` that ensures all data of type {x} is the "
        "same size",
        "Could not collate the {x}-th members of your tuples because got the following shapes {x}",
        "Make sure all parts of your samples are tensors of the same size",
        # monai
        "\\n\\nMONAI hint: if your transforms intentionally create images of different shapes, "
        "creating your `DataLoader` with `collate_fn=pad_list_data_collate` might solve this "
        "problem (check its documentation).",
        "\\nCollate error on the key '{key}' of dictionary data.",
        # transformers
        "Unable to create tensor, you should probably activate truncation and/or padding with "
        "'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps "
        "your features (`{key}` in this case) have excessive nesting (inputs type `list` where "
        "type `int` is expected).",
        "Unable to convert output '{key}' (type: {type(value).__name__}) to tensor: "
        "{str(e)}\\nYou can try:\\n  1. Use padding=True to ensure all outputs have the same "
        "shape\\n  2. Set return_tensors=None to return Python objects instead of tensors",
    ),
    "collate_unsupported_type": (
        # PyTorch Geometric
        "DataLoader found invalid type: {type(elem)}",
        # batchgenerators
        "unknown type for batch:",
        # dgl
        "graph_collate: batch must contain DGLGraph, tensors, numpy arrays, numbers, dicts or "
        "lists; found {}",
        # skorch
        "Cannot convert this data type to a torch tensor.",
        # transformers
        "type of {first_element} unknown: {type(first_element)}. Should be one of a python, "
        "numpy, or pytorch object.",
    ),
    "column_not_found": (
        # AllenNLP
        'Sorting key "{field_name}" is not a field in instance. Available fields/keys are '
        "{list(instance.fields.keys())}.",
        # ESPnet
        '"{cls.required_data_names(train, inference)}" are required for {cls.__name__}. but '
        '"{dataset.names()}" are input. {mes}',
        # GluonTS
        "Object is missing a required field `{self.name}`",
        # PyTorch Geometric
        "Data object does not contain attributes 'adj', 'adj_t' or 'edge_index'",
        # RecBole
        "kg data requires field [{}]",
        "link data requires field [{}]",
        "{field_name} must be loaded if {source.value}_feat is loaded.",
        "Field [{field}] not defined in dataset.",
        "Field [{field}] not in inter_feat.",
        "Preload id field [{preload_id_field}] not exist.",
        "Value_field [{value_field}] should be one of `inter_feat`'s features.",
        # TRL
        "Unexpected input keys in examples: {list(examples[0].keys())}.",
        "The input examples must contain either 'messages' for conversational data or 'text' "
        "for standard data.",
        "Invalid keys in the example: {example_keys}",
        "The features should include `input_ids_chosen`, `attention_mask_chosen`, "
        "`input_ids_rejected` and `attention_mask_rejected`",
        # TorchIO
        'Image "{self.probability_map_name}" not found in subject: {subject}',
        # axolotl
        "Prompt, chosen and rejected keys are required for DPO/ORPO datasets",
        "Prompt and completion keys are required for KTO datasets",
        "Messages is null. Please check `field_messages`.",
        # datasets
        "Column name {list(missing_columns)} not in the dataset. Current columns in the "
        "dataset: {dataset._data.column_names}",
        "Column {key} not in the dataset. Current columns in the dataset: {columns}",
        "Columns {list(missing_columns)} not in the dataset. Current columns in the dataset: "
        "{self._data.column_names}",
        "Input column {list(missing_columns)} not in the dataset. Current columns in the "
        "dataset: {self._data.column_names}",
        "Column to remove {list(missing_columns)} not in the dataset. Current columns in the "
        "dataset: {self._data.column_names}",
        "Original column name {original_column_name} not in the dataset. ",
        "Column '{column_name}' doesn't exist.",
        # diffusers
        "--image_column' value '{args.image_column}' needs to be one of: {', '.join(column_names)}",
        "--caption_column' value '{args.caption_column}' needs to be one of: {', "
        "'.join(column_names)}",
        "`--image_column` value '{args.image_column}' not found in dataset columns. Dataset "
        "columns are: {', '.join(column_names)}",
        "`--conditioning_image_column` value '{args.conditioning_image_column}' not found in "
        "dataset columns. Dataset columns are: {', '.join(column_names)}",
        "`--caption_column` value '{args.caption_column}' not found in dataset columns. Dataset "
        "columns are: {', '.join(column_names)}",
        "--original_image_column' value '{args.original_image_column}' needs to be one of: {', "
        "'.join(column_names)}",
        "--edit_prompt_column' value '{args.edit_prompt_column}' needs to be one of: {', "
        "'.join(column_names)}",
        "--edited_image_column' value '{args.edited_image_column}' needs to be one of: {', "
        "'.join(column_names)}",
        # fastai
        "`group_col` is not a valid column name in the DataFrame o",
        # mmocr
        "key {key} not in line json {line_json_obj}",
        # nemo
        "Manifest file {manifest_file} has invalid json line structure: {line} without proper "
        "audio file key.",
        "Manifest file {manifest_file} has invalid json line structure: {line} without proper "
        "duration key.",
        "lang required in manifest when using aggregate tokenizers",
        # neuralforecast
        "{missing_hist} historical exogenous variables not found in input dataset",
        "{missing_futr} future exogenous variables not found in input dataset",
        "{missing_stat} static exogenous variables not found in input dataset",
        "The following features are missing from `futr_df`: {missing}",
        "The following static columns are missing from the static_df: {missing_static}",
        # pytorch-forecasting
        "variable {x} specified but not found in data",
        # sentence-transformers
        "None of the valid_label_columns {valid_label_columns} are in the dataset, which only "
        "has these columns: {dataset.column_names}.",
        # torchaudio / SpeechBrain
        "CSV has to have an 'ID' field, with unique ids for all data points",
        # torchtext
        "Specified key {} was not found in the input data",
        "Invalid field name for strata_field {}",
        # torchtune
        "keys_to_pad should be a subset of keys in the batch, but found {keys_to_pad} and "
        "{set(batch[0].keys())}, respectively.",
        # unsloth
        "Unsloth: Your prompt includes '{column}' but this does not exist in the dataset. Only "
        "allowed columns are {list(dataset_columns)}",
    ),
    "corrupt_annotations": (
        # DALI
        'Incorrect format of the list file "{file_list_}":{n} expected file name followed by a '
        "label; got: {line}",
        "Wrong format of file_list: {file_list_}",
        # ESPnet
        "This line doesn't include a space: {f}:L{linenum}: {line})",
        "scp file must have two or more columns: {line} ({path}:{linenum})",
        # MMDetection / mmcv
        "Annotation ids in '{ann_file}' are not unique!",
        # VideoMAE
        "Video input format is not correct, missing one or more element. %s",
        # YOLOv5
        "labels require 5 columns, {lb.shape[1]} columns detected",
        "negative label values {lb[lb < 0]}",
        "non-normalized or out of bounds coordinates {lb[:, 1:][lb[:, 1:] > 1]}",
        "labels require 5 columns each",
        "non-normalized or out of bounds coordinate labels",
        # albumentations / kornia
        "In YOLO format all coordinates must be float and in range (0, 1], got {bboxes}",
        "Expected {invalid_coord} for bbox {invalid_bbox} to be in the range [0.0, 1.0], got "
        "{invalid_value}.",
        "x_max is less than or equal to x_min for bbox {invalid_bbox}.",
        "y_max is less than or equal to y_min for bbox {invalid_bbox}.",
        "Expected {name} for keypoint {kp} to be in the range [0.0, {size}], got {value}.",
        # detectron2
        "Mismatched image shape{}, got {}, expect {}. Please check the width/height in your "
        "annotation.",
        "mismatch (W,H), got {}, expect {}",
        "Cannot transform segmentation of type '{}'!Supported types are: polygons as "
        "list[list[float] or ndarray], COCO-style RLE as a dict.",
        "Cannot convert segmentation of type '{}' to BitMasks!Supported types are: polygons as "
        "list[list[float] or ndarray], COCO-style RLE as a dict, or a binary segmentation mask  "
        "in a 2D numpy array of shape HxW.",
        "Annotation ids in '{}' are not unique!",
        "ignore in COCO json file is not supported.",
        "One annotation of image {image_id} contains empty 'bbox' value! This json does not "
        "have valid COCO format.",
        "Encountered category_id={annotation_category_id} but this id does not exist in "
        "'categories' of the json file.",
        # lhotse
        "Supervisions starting before the cut are not supported for ASR (sup id: "
        "{supervision.id}, cut id: {cut.id})",
        "Supervisions ending after the cut are not supported for ASR (sup id: {supervision.id}, "
        "cut id: {cut.id})",
        # mmaction2
        "missing label in line: {line}",
        # mmengine
        "raw_data_info: {raw_data_info} dose not contain prefix key{prefix_key}, please check "
        "your data_prefix.",
        # mmocr
        "key index: {max(self.keys_idx)} out of range: {line_str}",
        "Please remove data with empty annotation",
        # pytorchvideo
        "Multiple entries for {output_dict} in {dataclass_file}",
        # torchaudio / SpeechBrain
        "Invalid sample range (start < 0): {start}..{stop}!",
        "Invalid sample range (stop < start): {start}..{stop}!\\n 'Hint: Omit stop if you want "
        "to read to the end of file.'",
        # ultralytics
        "labels require 5 columns, {lb.shape[1]} columns detected",
        "labels require {(5 + nkpt * ndim)} columns each",
        "non-normalized or out of bounds coordinates {points[points > 1.01]}",
        "negative class labels or coordinate {lb[lb < -0.01]}",
        "Label class {int(max_cls)} exceeds dataset class count {num_cls}. Possible class "
        "labels are 0-{num_cls - 1}",
        "No valid images found in {cache_path}. Images with incorrectly formatted labels are "
        "ignored. {HELP_URL}",
    ),
    "crop_larger_than_image": (
        # TorchIO
        "Patch size {tuple(self.patch_size)} cannot be larger than image size "
        "{tuple(subject.spatial_shape)}",
        # albumentations / kornia
        "Requested crop size ({crop_height}, {crop_width}) is larger than the image size "
        "({height}, {width})",
        # torchvision
        "Required crop size {(th, tw)} is larger than input image size {(h, w)}",
    ),
    "cutmix_mixup_per_sample": (
        # torchvision
        "{type(self).__name__}() does not support PIL images, bounding boxes and masks.",
        "labels tensor should be of shape (batch_size,) but got shape {labels.shape} instead.",
        "Expected a batched input with {expected_num_dims} dims, but got {inpt.ndim} dimensions "
        "instead.",
    ),
    "dataset_config_invalid": (
        # AllenNLP
        "Mismatch between readers ({self.readers.keys()}) and data paths "
        "({self.data_paths.keys()})",
        "You must provide either a Params object containing a vocab_directory key or a Dataset "
        "to build a vocabulary from.",
        # ESPnet
        '1 or more elements are required for "path_name_type_list"',
        '"{name}" is duplicated for data-key',
        "Not supported: loader_type={loader_type}",
        "Not supported loader_type={loader_type}",
        "No shape file are given",
        'The data-name must be one of {task_keys} for {cls.__name__}: "{k}" is not allowed. {mes}',
        # LAVIS
        "Expecting storage_path to be a file path, got directory {}",
        "Invalid data_type {data_type} for {name}.",
        "At least one dataset has to be specified.",
        "data_loader for split {} is None.",
        # MMDetection / mmcv
        "Unsupported type {type(classes)} of classes.",
        "pipeline must be a dict",
        # Megatron-LM
        "blend prefixes and weights must be equal in number",
        "split must be provided when blend is not None",
        "blend and blend_per_split are incompatible",
        "split and blend_per_split are incompatible",
        "blend_per_split must contain {len(Split)} blends",
        "blend per split prefixes and weights must be equal in number",
        "--data-cache-path must be provided when using --dataloader-fast-cache-load.",
        "--dataloader-fast-cache-load and --data-path cannot be used together. Use "
        "--per-split-data-args-path or --train-data-path, --valid-data-path and "
        "--test-data-path instead.",
        "size_is_none => weights_are_none fails for {split.name} split This can occur with "
        "multiple validation sets if datasets have weights",
        "Using client-specified weights requires client-specified size",
        "{self.cls.__name__} failed to build as a mock data generator",
        # OpenCLIP
        "Manifest {path!r} is not valid JSON: {e}",
        "Manifest {path!r} is not valid YAML: {e}",
        "Manifest {path!r}: 'version' must be 1, got {manifest.get('version')!r}.",
        "Manifest {path!r}: 'sources' must be a non-empty list.",
        "{where}: 'shards' must be a string or non-empty list of strings.",
        "{where}: 'samples' (effective post-filter count) is required and must be a positive int.",
        "Manifest {path!r}: 'weight_mode' must be one of {_WEIGHT_MODES}, got {weight_mode!r}.",
        # OpenNMT-py
        "Please check path of your {info} file!",
        "Corpus {cname} path are required",
        "Corpus {cname} src path is required.tgt path is also required for non language "
        "modeling tasks.",
        "Corpus {cname} alignment file path are required when lambda_align > 0.0",
        "Corpus {cname} prefix are required.",
        "lambda_align is not compatible with on-the-fly tokenization.",
        "lambda_align is not compatible yet with potentiel token deletion/addition.",
        "-tgt_vocab is required if not -share_vocab.",
        "Please check path of %s",
        "Please provide same number of src and tgt train files!",
        "Please check path of your valid src file!",
        "Please check -data_ids and -data_weights options!",
        "Invalid argument skip_empty_level={skip_empty_level}",
        "Illegal argument n_sample={opts.n_sample}.",
        "n_sample should > 0 or == -1, get {n_sample}.",
        # OpenPCDet
        "Current only support single DB_DATA",
        # RecBole
        "{field_name} must be exist if {source.value}_feat exist.",
        "USER_ID_FIELD and ITEM_ID_FIELD need to be set at the same time or not set at the same "
        "time.",
        "load_col [{load_col}] and unload_col [{unload_col}] can not be set the same time.",
        "Field [{field}] is not float-like field in dataset, which can't be filter.",
        "Preload id field [{preload_id_field}] should be type token, but is [{id_ftype}].",
        "Field [{field}] occurred in `fields_in_same_space` more than one time.",
        "Field [{field}] is not a token-like field.",
        "dataset does not exist uid/iid, thus can not converted to sparse matrix.",
        "leave one out strategy require a group field",
        "The split_args [{split_args}] should be a dict.",
        'The value of "RS" [{split_args}] should be a list.',
        "The splitting_method [{split_mode}] has not been implemented.",
        "The ordering args for sequential recommendation has to be 'TO'",
        "The sampling distribution [{self.distribution}] is not implemented.",
        # YOLOv5
        "{prefix}Error loading data from {path}: {e} See {HELP_URL}",
        "No *.yaml file found in {dir}",
        "data.yaml '{k}:' field missing ❌",
        "data.yaml names keys must be integers, i.e. 2: car",
        "Multiple files match '{file}', specify exact path: {files}",
        # axolotl
        "no {split} split found for dataset {dataset_config.path}, you may specify a split with "
        "'split: ...'",
        "unhandled prompt tokenization strategy: {ds_type}. {suffix}",
        "`type: sharegpt.*` is deprecated. Please use `type: chat_template` instead.",
        "either datasets or pretraining_dataset is required",
        "non-zero val_set_size should not be used with test_datasets configuration",
        "eval_table_size and eval_sample_packing are not supported together with "
        "sample_packing. Please set 'eval_sample_packing' to false.",
        "eval_steps and eval_strategy are not supported with val_set_size == 0",
        "data_files must be either a string or list of strings",
        # coqui TTS
        "[!] seq_len has to be a multiple of hop_len.",
        # mmaction2
        "The value of person_det_score_thr should in [0, 1].",
        # mmdetection3d
        "Please specify the `modality` (`use_lidar` , `use_camera`) for {self.__class__.__name__}",
        "new classes {new_classes} is not a subset of CLASSES {old_classes} in METAINFO.",
        "Once PLATTE in set in metainfo, it shouldmatch CLASSES in metainfo",
        "Expect all used dimensions < {load_dim}, got {use_dim}",
        "When using intensity norm, expect used dimensions >= 4, got {len(self.use_dim)}",
        "Expect points have color attribute",
        "Unsupported type {type(classes)} of classes.",
        # mmocr
        "We only support using LineJsonParser to parse lmdb file. Please use LineJsonParser in "
        "the dataset config",
        # mmpose
        '{self.__class__.__name__} got invalid data_mode: {data_mode}. Should be "topdown" or '
        '"bottomup".',
        '{self.__class__.__name__} is set to {self.data_mode}: mode, while "bbox_file" is only '
        "supported in topdown mode.",
        '{self.__class__.__name__} has `test_mode==False` while "bbox_file" is only supported '
        "when `test_mode==True`.",
        '{self.__class__.__name__} is set to {self.data_mode} mode, while "bbox_score_thr" is '
        "only supported in topdown mode.",
        'The metainfo config file "{cfg_file}" does not exist.',
        "Unsupported `subset_frac` {subset_frac}. Supported range is (0, 1].",
        "Multi-frame data sample unsupported!",
        'Unsupported `keypoint_2d_src` "{self.keypoint_2d_src}". Supported options are '
        "{self.SUPPORTED_keypoint_2d_src}",
        "Check https://github.com/open-mmlab/mmpose/pull/663 for details.",
        # mmsegmentation
        "new classes {new_classes} is not a subset of classes {old_classes} in METAINFO.",
        "palette does not match classes as metainfo is {self._metainfo}.",
        "dataset metainfo `classes` should be specified when testing",
        'Initialize dataset with `reduce_zero_label` as {results["reduce_zero_label"]} but when '
        "load annotation the `reduce_zero_label` is {self.reduce_zero_label}",
        "Unsupported type {type(classes)} of classes.",
        "classes is not a subset of CLASSES.",
        # nemo
        "Invalid shard strategy ! Allowed values are : {valid_shard_strategies}",
        "Each item in 'extra_fields' must contain a 'type' field with one of the supported "
        "values ({ExtraField.supported_types()}). We got {field_type=} in {extra_fields=}",
        "manifest_filepaths (length={len(manifest_filepaths)}) and tarred_audio_filepaths "
        "(length={len(tarred_audio_filepaths)}) need to have the same number of buckets.",
        "bucket weights must be positive integers",
        "In a multi-config setting (multi_config=True), the top-level namespace (typically "
        "train_ds)must define at least 'seed', 'shard_seed', and 'shuffle' keys that will be "
        "shared by all sub-configs.",
        "Cannot create a sampler for one of the sub-configs in a multi_config setup.The "
        "problematic config is under key={name} and has the following contents: {config}",
        "When using multiple input_cfg sources ensure they are all tarred or non-tarred (can't "
        "mix). You can provide force_iterable_dataset=True to each namespace to fix.",
        "Unsupported sampler fusion strategy: {shared_opts.sampler_fusion}",
        "You must pass a tokenizer to `get_lhotse_dataloader_from_config` in order toread "
        "text-only datasets (enabled via use_multimodal_dataloading)",
        "Currently we only support sampling techniques in {supported_sampling_techniques}.",
        "Random generator expects a 'p' keyword argument for sampling probabilities.",
        "Length of probabilities list must be equal to the number of datasets.",
        # nnU-Net
        "not all required keys are present in dataset.json. Required: %s Present: %s Missing: "
        "%s Unused by nnU-Net: %s",
        "Did not find the expected number of training cases (%d). Found %d instead. Examples: %s",
        "Labels must be in consecutive order (0, 1, 2, ...). The labels "
        "{np.array(expected_labels)[1:][~labels_valid_consecutive]} do not satisfy this "
        "restriction",
        "Error: Unexpected number of modalities. Expected: %d. Got: %d. Images: %s",
        "Unable to determine a reader for file ending {file_ending} and file {example_file} "
        "(file None means no file provided).",
        # torchtune
        "Expected a key of 'input' in column_map but found {column_map.keys()}.",
        "Expected a key of 'chosen' in column_map but found {column_map.keys()}.",
        "Expected a key of 'conversations' in column_map but found {column_map.keys()}.",
        "Expected a key of 'messages' in column_map but found {column_map.keys()}.",
        "Unsupported conversation style: {conversation_style}",
        "PackedDataset requires a max_seq_len to be set on the tokenizer.",
        "found both 'subset' and 'name' found, you may only specify one, {load_dataset_kwargs=}",
        # ultralytics
        "'kpt_shape' in data.yaml missing or incorrect. Should be a list with [number of "
        "keypoints, number of dims (2 for x,y or 3 for x,y,visible)], i.e. 'kpt_shape: [17, 3]'",
        "{dataset} '{k}:' key missing ❌.\\n'train' and 'val' are required in all data YAMLs.",
        "{dataset} key missing ❌.\\n either 'names' or 'nc' are required in all data YAMLs.",
        "{dataset} 'names' length {len(data['names'])} and 'nc: {data['nc']}' must match.",
        "No YAML file found in '{path.resolve()}'",
        "Expected 1 YAML file in '{path.resolve()}', but found {len(files)}.\\n{files}",
        'Classification datasets must be a directory (data="path/to/dir") not a file '
        '(data="{dataset}"), See https://docs.ultralytics.com/datasets/classify/',
    ),
    "dataset_download_refused": (
        # YOLOv5
        "File download failed: {url}",
        # dgl
        "Failed downloading url %s",
        # torchtext
        "The hash of {} does not match. Delete the file manually and retry.",
    ),
    "dataset_layout_mismatch": (
        # DeepChem
        "Malformed metadata on disk. Metadata must have columns 'ids', 'X', 'y', 'w', "
        "'ids_shape', 'X_shape', 'y_shape', 'w_shape' (or if in legacy metadata format,columns "
        "'ids', 'X', 'y', 'w')",
        # DeepSpeed
        "Index file doesn't match expected format. Make sure that --dataset-impl is configured "
        "properly.",
        # FFCV
        "file format mismatch: code={CURRENT_VERSION},file={version}",
        # LLaMA-Factory
        "Cannot find valid samples, check `data/README.md` for the data format.",
        # Megatron-LM
        "bad header, cannot read: {idx_path}",
        "bad version, cannot read: {idx_path}",
        "Index file doesn't match expected format. Make sure that --dataset-impl is configured "
        "properly.",
        # YOLOv5
        "{prefix}No labels in {cache_path}. Can not train without labels. See {HELP_URL}",
        "Error unzipping {path}, {dir} not found. path/to/abc.zip MUST unzip to path/to/abc/",
        "No labels found in {cache_path}. Can not train without labels. See {help_url}",
        # fairseq
        "Index file doesn't match expected format. Make sure that --dataset-impl is configured "
        "properly.",
        # mmdetection3d
        "Currently we only support load image from kitti andnuscenes datasets",
        # mmengine
        "The annotations loaded from annotation file should be a dict, but got "
        "{type(annotations)}!",
        "Annotation must have data_list and metainfo keys",
        # nnU-Net
        "There needs to be a dataset.json file in folder, folder={folder}",
        "There needs to be a imagesTr subfolder in folder, folder={folder}",
        "There needs to be a labelsTr subfolder in folder, folder={folder}",
        # torchtext
        "extracted_file [{}] was not found in the archive [{}]",
        # unsloth
        "Unsloth: Your dataset is probably already in ShareGPT format!",
    ),
    "dataset_name_pattern": (
        # nemo
        "Cannot determine shard_id from manifest input specified: we searched with regex "
        "'{json_pattern.pattern}' in input '{p}'",
        "Cannot determine shard_id from tar input specifier: we searched with regex "
        "'{tar_pattern.pattern}' in input '{p}'",
    ),
    "dataset_not_downloaded": (
        # DETR
        "provided COCO path {root} does not exist",
        "provided COCO path {img_folder_root} does not exist",
        "provided COCO path {ann_folder_root} does not exist",
        # DeepChem
        "No Metadata found in the path {self.data_dir}",
        # DeepSpeed
        "Dataset does not exist: {path}",
        "Path should be a basename that both .idx and .bin can be appended to get full filenames.",
        # LAVIS
        "The specified path {storage_path} for visual inputs does not exist. Please provide a "
        "correct path to the visual inputs or refer to datasets/download_scripts/README.md for "
        "downloading instructions.",
        "storage path {} does not exist.",
        # MMDetection / mmcv
        "img file does not exist: {img_or_path}",
        # Megatron-LM
        "One or both of the .idx and .bin files cannot be found at the path prefix {path_prefix}",
        "Dataset does not exist: {path}",
        "Path should be a basename that both .idx and .bin can be appended to get full filenames.",
        # OGB
        "No node label file found.",
        # OpenNMT-py
        "Vocabulary not found at {}",
        "{} vocabulary not found at {}!",
        # OpenPCDet
        "assert lidar_file.exists()",
        "assert calib_file.exists()",
        "assert label_file.exists()",
        # Ray
        "None of the provided paths exist. The 'ignore_missing_paths' field is set to True.",
        # RecBole
        "Neither [{self.dataset_path}] exists in the device nor [{self.dataset_name}] a known "
        "dataset name.",
        "Additional feature file [{feat_path}] not found.",
        # VideoMAE
        "Setting file %s doesn't exist. Check opt.train-list and opt.val-list.",
        # YOLOv5
        "Dataset not found ⚠️, missing paths %s",
        # coqui TTS
        "[!] wav files don't exist - {item['audio_file']}",
        "Found too few instances for Voxceleb. Should be around {expected_count}, is: {cnt}",
        # fairseq
        "Dataset not found: {} ({})",
        # mmocr
        "Direct url is not available for this dataset. Please manually download the required "
        "files following the guides.",
        # mmpose
        '`{str(e)}` occurs when loading `{results["img_path"]}`.Please check whether the file '
        "exists.",
        "Annotation file does not exist.",
        # mmsegmentation
        "Failed to load `ann_file` {self.ann_file}",
        # ms-swift
        "The local path does not exist, dataset_id: `{dataset_id}`. os.path.exists(dataset_id): "
        "{os.path.exists(dataset_id)}",
        # nemo
        "Provided texts file does not exists!",
        # nnU-Net
        "Some expected files were missing. Make sure you are properly referencing them in the "
        "dataset.json. Or use imagesTr & labelsTr folders! Missing images: {missing_images} "
        "Missing labels: {missing_labels}",
        "Could not find a dataset with the ID {dataset_id}. Make sure the requested dataset ID "
        "exists and that nnU-Net knows where raw and preprocessed data are located (see "
        "Documentation - Installation). Here are your currently defined folders: "
        "nnUNet_preprocessed={paths.nnUNet_preprocessed} nnUNet_results={paths.nnUNet_results} "
        "nnUNet_raw={paths.nnUNet_raw} If something is not right, adapt your environment "
        "variables.",
        "Could not find a task with the ID %d. Make sure the requested task ID exists and that "
        "nnU-Net knows where raw and preprocessed data are located (see Documentation - "
        "Installation).",
        # torchaudio / SpeechBrain
        "Dataset not found at {self._path}. Please set `download=True` to download the dataset.",
        # torchgeo
        "Dataset not found in `{var}={val!r}` and `download=False`, either specify a different "
        "`{var}` or use `download=True` to automatically download the dataset.",
        # torchvision
        "Dataset not found. You can use download=True to download it",
        "Dataset not found or corrupted. You can use download=True to download it",
        "Dataset metadata file not found or corrupted. You can use download=True to download it",
        "Dataset not found or incomplete. Please make sure all required folders for the "
        'specified "split" and "mode" are inside the "root" directory',
        "The archive {} is not present in the root directory or is corrupted. You need to "
        "download it externally and place it in {}.",
        "The meta file {} is not present in the root directory or is corrupted. This file is "
        "automatically created by the ImageNet dataset.",
        # ultralytics
        "Dataset '{name}' images not found, missing path '{next(x for x in val if not "
        "x.exists())}'\\nNote dataset download directory is '{DATASETS_DIR}'. You can update "
        "this in '{SETTINGS_FILE}'",
    ),
    "dataset_not_registered": (
        # LAVIS
        "Dataset {name} not found. Available datasets:",
        # LLaMA-Factory
        "Undefined dataset {} in {}.",
        # OGB
        "Invalid dataset name {}. Available datasets are as follows:",
        # SlowFast
        "No object named '{}' found in '{}' registry!",
        # detectron2
        "Dataset '{}' is not registered! Available datasets are: {}",
        # mmengine
        "{obj_type} is not in the {registry.scope}::{registry.name} registry. Please check "
        "whether the value of `{obj_type}` is correct or it was registered as expected. More "
        "details can be found at https://mmengine.readthedocs.io/en/latest/advanced_tutorials/"
        "config.html#import-the-custom-module",
    ),
    "dataset_retry_recursion": (
        # MMDetection / mmcv
        "The loading pipeline of the original dataset always return None. Please check the "
        "correctness of the dataset and its pipeline.",
        "The training pipeline of the dataset wrapper always return None.Please check the "
        "correctness of the dataset and its pipeline.",
        # mmengine
        "Cannot find valid image after {self.max_refetch}! Please check your image path and "
        "pipeline",
    ),
    "dataset_script_unsupported": (
        # datasets
        "Dataset scripts are no longer supported, but found {filename}",
    ),
    "datasets_cache_location": (
        # datasets
        "Not enough disk space. Needed: {size_str(self.info.size_in_bytes or 0)} (download: "
        "{size_str(self.info.download_size or 0)}, generated: {size_str(self.info.dataset_size "
        "or 0)}",
    ),
    "dependency_version_mismatch": (
        # OGB
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, do those steps only if you trust the source of the checkpoint\\033[0m.",
        # accelerate
        "StatefulDataLoader is not available. Please install torchdata version 0.8.0 or higher "
        "to use it.",
        # timm
        "Please update to a newer PyTorch and torchvision for Places365 dataset.",
    ),
    "dispatch_batches_concat": (
        # accelerate
        "You can't use batches of different size with `dispatch_batches=True` or when using an "
        "`IterableDataset`.either pass `dispatch_batches=False` and have each process fetch its "
        "own batch  or pass `split_batches=True`. By doing so, the main process will fetch a "
        "full batch and slice it into `num_processes` batches for each process.",
    ),
    "distributed_not_initialized": (
        # Composer
        "The world_size({world_size}) > 1, but the distributed package is not available or has "
        "not been initialized. Please check you have initialized the distributed runtime and "
        "that PyTorch has been built with distributed support. If calling this function outside "
        "Trainer, please ensure that `composer.utils.dist.initialize_dist` has been called "
        "first.",
        # nemo
        "Torch distributed is not initialized and caching on nodes other than global rank zero "
        "is disabled to avoid race condition between different ranks. To ensure distributed "
        "environment is initialized, please update data config to use `defer_setup = True`.",
    ),
    "empty_dataset": (
        # AllenNLP
        "No instances were read from the given filepath {}. Is the path correct?",
        # DALI
        "``files`` specified an empty list.",
        # DeepSpeed
        "no sample to consume: {}",
        # GluonTS
        "no valid file found in {path}",
        # Megatron-LM
        "no sample to consume: {}",
        "Got an empty split when trying to create dataset: {prefixes[i], splits[i]}",
        # PyTorch-Ignite
        "Input data has zero size. Please provide non-empty data",
        # Ray
        "No input files found to read. Please double check that 'partition_filter' field is set "
        "properly.",
        "No input files found to read with the following file extensions: {file_extensions}. "
        "Please double check that 'file_extensions' field is set properly.",
        # RecBole
        "Some feat is empty, please check the filtering settings.",
        # SlowFast
        "Failed to load Kinetics split {} from {}",
        # TorchIO
        "Subjects list is empty",
        'The directory "{directory}" does not seem to contain DICOM files',
        # VideoMAE
        "Found 0 video clips in subfolders of: {root} Check your data directory (opt.data-dir).",
        # YOLOv5
        "No images or videos found in {p}. Supported formats are: images: {IMG_FORMATS} videos: "
        "{VID_FORMATS}",
        # coqui TTS
        "[!] No training samples found in {root_path}/{meta_file_train}",
        # datasets
        "No (supported) data files found in {path}",
        "The directory at {base_path} doesn't contain any data files",
        "Unable to find '{pattern}' with any supported extension {list(allowed_extensions)}",
        "Couldn't find any data file at {relative_to_absolute_path(path)}. Couldn't find "
        "'{path}' on the Hugging Face Hub either: {type(e1).__name__}: {e1}",
        # decord
        "At least one video is required for video loader!",
        # detectron2
        "Dataset '{}' is empty!",
        "No valid data found in {}.",
        "No annotations found in {}.",
        # diffusers
        "Instance {self.instance_data_root} images root doesn't exists.",
        "Instance images root doesn't exists.",
        # fastai
        "Tried to grab subset {x} in the Dataset, but it contained no items. {x}",
        # pytorch-forecasting
        "After applying filter no sub-sequences left in dataset",
        # pytorchvideo
        "Failed to load dataset from {file_path}.",
        "Failed to load dataset from {dir_path}.",
        "video_frame_paths is empty",
        # timm
        'Found 0 images in subfolders of {root}. Supported image extensions are {", '
        '".join(get_img_extensions())}',
        "assert os.path.exists(root)",
        # torchgeo
        "Dataset not found in `{var}={val!r}` and cannot be automatically downloaded, either "
        "specify a different `{var}` or manually download the dataset.",
        # torchvision
        "Couldn't find any class folder in {directory}.",
        "Found no valid file for the classes {', '.join(sorted(empty_classes))}. Supported "
        "extensions are: {extensions if isinstance(extensions, str) else ', '.join(extensions)}",
        # ultralytics
        "{self.prefix}Error loading data from {img_path}\\n{HELP_URL}",
        "{self.prefix}No images found in {img_path}. {FORMATS_HELP_MSG}",
        "{dataset} '{k}:' no training images found",
        # webdataset
        "pipeline stage received no data at all and this was declared as an error",
    ),
    "framework_rebuilds_loader": (
        # lightning
        "Trying to inject custom `Sampler` into the `{dataloader_cls_name}` instance. This "
        "would fail as some of the `__init__` arguments are not available as instance "
        "attributes. The missing attributes are {sorted_required_args}. If you instantiate your "
        "`{dataloader_cls_name}` inside a `*_dataloader` hook of your module, we will do this "
        "for you. Otherwise, define {missing_args_message} inside your `__init__`.",
        "Trying to inject parameters into the `{dataloader_cls_name}` instance. This would fail "
        "as it doesn't expose all its attributes in the `__init__` signature. The missing "
        "arguments are {sorted_missing_kwargs}. HINT: If you wrote the `{dataloader_cls_name}` "
        "class, add the `__init__` arguments or allow passing `**kwargs`",
        "Trying to inject a modified sampler into the batch sampler; however, it seems the "
        "class `{batch_sampler_cls.__qualname__}` does not have an argument called `sampler.` "
        "To mitigate this, expose an argument `sampler` in the `__init__` method of your custom "
        "class.",
        "Lightning can't inject a (distributed) sampler into your batch sampler, because it "
        "doesn't subclass PyTorch's `BatchSampler`. To mitigate this, either follow the API of "
        "`BatchSampler` or set `Trainer(use_distributed_sampler=False)`. If you choose the "
        "latter, you will be responsible for handling the distributed sampling within your "
        "batch sampler.",
        "Lightning can't inject a (distributed) sampler into your batch sampler, because it "
        "doesn't subclass PyTorch's `BatchSampler`. To mitigate this, either follow the API of "
        "`BatchSampler` or set`.setup_dataloaders(..., use_distributed_sampler=False)`. If you "
        "choose the latter, you will be responsible for handling the distributed sampling "
        "within your batch sampler.",
        "The {constructor.__name__} implementation has an error where more than one `__init__` "
        "argument can be passed to its parent's `{argument}=...` `__init__` argument. This is "
        "likely caused by allowing passing both a custom argument that will map to the "
        "`{argument}` argument as well as `**kwargs`. `kwargs` should be filtered to make sure "
        "they don't contain the `{argument}` key. This argument was automatically passed to "
        "your object by PyTorch Lightning.",
        "You seem to have configured a sampler in your DataLoader which does not provide "
        "`__len__` method. The sampler was about to be replaced by `DistributedSamplerWrapper` "
        "since `use_distributed_sampler` is True and you are using distributed training. Either "
        "provide `__len__` method in your sampler, remove it from DataLoader or set "
        "`use_distributed_sampler=False` if you want to handle distributed sampling yourself.",
        "You seem to have configured a sampler in your DataLoader which does not provide finite "
        "`__len__` method. The sampler was about to be replaced by `DistributedSamplerWrapper` "
        "since `use_distributed_sampler` is True and you are using distributed training. Either "
        "provide `__len__` method in your sampler which returns a finite number, remove it from "
        "DataLoader or set `use_distributed_sampler=False` if you want to handle distributed "
        "sampling yourself.",
    ),
    "frozen_dataclass_batch": (
        # lightning
        "A frozen dataclass was passed to `apply_to_collection` but this is not allowed.",
    ),
    "group_by_length_unsupported": (
        # transformers
        "Can only automatically infer lengths for datasets whose items are dictionaries with an "
        "'{model_input_name}' key.",
    ),
    "hub_dataset_inaccessible": (
        # datasets
        "Dataset '{path}' doesn't exist on the Hub or cannot be accessed.",
    ),
    "image_processor_channels": (
        # transformers
        "Unable to infer channel dimension format",
        "Unsupported number of image dimensions: {image.ndim}",
        "mean must have {num_channels} elements if it is an iterable, got {len(mean)}",
    ),
    "imagefolder_metadata_missing": (
        # datasets
        "`file_name`, `*_file_name`, `file_names` or `*_file_names` must be present as "
        "dictionary key in metadata files",
    ),
    "indexers_applied_in_reader": (
        # AllenNLP
        "Found a TextField ({field_name}) with token_indexers already applied, but you're using "
        "num_workers > 0 in your data loader. Make sure your dataset reader's "
        "text_to_instance() method doesn't add any token_indexers to the TextFields it creates. "
        "Instead, the token_indexers should be added to the instances in the "
        "apply_token_indexers() method of your dataset reader (which you'll have to implement "
        "if you haven't done so already).",
    ),
    "invalid_dataset_args": (
        # DALI
        "Provided {labels.size()} labels for {files.size()} files.",
        # DeepChem
        "smiles_field and feature_field if both set must have the same value.",
        "featurizer must be specified in constructor to featurizer data/",
        # PyTorch Geometric Temporal
        "Temporal dimension inconsistency.",
        # SlowFast
        "Split '{}' not supported for Kinetics",
        # TorchIO
        "A value for path or tensor must be given",
        'Key "{key}" is reserved. Use a different one',
        "Expected type str or Path but found a tensor/array. Instead of "
        "{class_name}(your_tensor), use {class_name}(tensor=your_tensor).",
        "Expected type str or Path but found an object with type {type(path)} instead",
        "The path argument cannot be a dictionary",
        'Input tensor must be a PyTorch tensor or NumPy array, but type "{type(tensor)}" was found',
        "Affine must be a NumPy array, not {bad_type}",
        "Affine shape must be (4, 4), not {bad_shape}",
        "Only one dictionary as positional argument is allowed",
        'Image must be an instance of torchio.Image, but its type is "{type(image)}"',
        "The transform must be a callable object, but it has type {type(transform)}",
        'Subjects list must contain instances of torchio.Subject, not "{type(subject)}"',
        # YOLOX
        "num_imgs must be specified as the size of the dataset",
        "path_filename must be specified if cache_type is disk",
        # darts
        "The sequence of `{name}` must have the same length as the sequence of target `series`.",
        # datasets
        "Failed to concatenate on axis=1 because tables don't have the same number of rows",
        # detectron2
        "Datasets have different metadata '{}'!",
        # lhotse
        "There have to be at least two iterables to multiplex.",
        # litdata
        "Shuffle should be a boolean. Found {shuffle}",
        "subsample must be a float with value between 0 and 1.",
        # mmengine
        "metainfo should be a dict, but got {type(metainfo)}",
        "prefix should be a string, but got {type(prefix)}",
        "transform should be a callable object, but got {type(transform)}",
        "transform must be a callable object or dict, but got {type(transform)}",
        "{indices} is out of dataset length({len(self)}",
        "indices should be a int or sequence of int, but got {type(indices)}",
        "{type(self)} must implement `get_cat_ids` method",
        "elements in datasets sequence should be config or `BaseDataset` instance, but got "
        "{type(dataset)}",
        "{key} does not in the meta information of the {i}-th dataset",
        "The type of {key} in the {i}-th dataset should be the same with the first dataset",
        "The meta information of the {i}-th dataset does not match meta information of the "
        "first dataset",
        "`ConcatDataset` dose not support `get_subset` and `get_subset_` interfaces because "
        "this will lead to ambiguous implementation of some methods. If you want to use "
        "`get_subset` or `get_subset_` interfaces, please use them in the wrapped dataset first "
        "and then use `ConcatDataset`.",
        # mmocr
        "elements in datasets sequence should be config or `BaseDataset` instance, but got "
        "{type(dataset)}",
        "The pipeline of dataset {i} is not empty, please set `force_apply` to True.",
        "The meta information of the {i}-th dataset does not match meta information of the "
        "first dataset",
        # mmsegmentation
        "elements in datasets sequence should be config or `ConcatDataset` instance, but got "
        "{type(dataset)}",
        # monai
        "`transform` must be a callable or a list of callables that is Composable",
        "Invalid argument combination: `track_meta=True` cannot be used with "
        "`weights_only=True`. To cache and reload MetaTensors, set `track_meta=True` and "
        "`weights_only=False`.",
        "transform must be an instance of monai.transforms.Compose.",
        "Options other than `runtime_cache=False` is not implemented yet.",
        "replace_rate must be greater than 0, otherwise, please use monai.data.CacheDataset.",
        "All loaded arrays must have the same first dimension size {self.length}, array `{k}` "
        "has size {v.shape[0]}",
        "`src` must be file path or pandas `DataFrame`.",
        # mosaic
        "You must provide either `streams` or `remote`/`local`, but not both.",
        "Epoch size cannot be negative. Received {epoch_size_value}.",
        "Invalid sampling method: {sampling_method}. Must be one of `balanced` or `fixed`.",
        "`sampling_granularity` must be a positive integer, but got: {self.sampling_granularity}.",
        "Invalid batching method: {batching_method}. Must be one of `random`, `stratified`, "
        "`per_stream`, or `device_per_stream`.",
        # nemo
        "All datasets in ConcatDataset must be of the same kind (Iterable or Map).",
        # neuralforecast
        "All entries in the list of files must be of type string",
        # pytorch-tabnet
        "You need the same number of rows between X_{name} ({X.shape[0]}) and y_{name} "
        "({y.shape[0]})",
        # pytorchvideo
        "decode_audio must be False when using FrameVideo",
        "Only one of video_frame_to_path_fn or video_frame_paths can be provided",
        # skorch
        "Dataset does not have consistent lengths.",
        "X and y have inconsistent lengths.",
        "Cannot perform a CV split if dataset and y have different lengths.",
        "Initialized with items of different lengths: {}",
        "Cannot set array with shape[0] != {}",
        # torchgeo
        "IntersectionDataset only supports GeoDatasets",
        "UnionDataset only supports GeoDatasets",
        # torchtune
        "At least one of message_transform or model_transform must be provided.",
        # torchvision
        "Both extensions and is_valid_file cannot be None or not None at the same time",
        "Only transforms or transform/target_transform can be passed as argument",
        # webdataset
        "perepoch {nsample} must be no greater than the number of shards",
        "specify only one of perepoch or choose",
    ),
    "invalid_loader_args": (
        # AllenNLP
        "num_workers cannot be a negative number",
        "batch_sampler option is mutually exclusive with batch_size",
        "batch_sampler option is mutually exclusive with shuffle",
        "batch_size is required when batch_sampler is not supplied",
        "max_instances_in_memory must be at least batch_size",
        "You must provide an EpochSampler if you want to not use all instances every epoch.",
        # DALI
        "``file_root`` argument is required when not using ``files`` or ``file_list``.",
        "File paths can be provided through ``files`` or ``file_list`` but not both.",
        "The argument ``labels`` is valid only when file paths are provided as ``files`` argument.",
        "shuffle_after_epoch and stick_to_shard cannot be both true",
        "shuffle_after_epoch and random_shuffle cannot be both true",
        "When reader_name is provided, size should not be set",
        "When reader_name is provided, last_batch_padded should not be set",
        "Negative size is supported only for a single pipeline",
        "All pipelines should have the same batch size set",
        "output_map names should be distinct",
        # FFCV
        "Order {order} is not a supported order type or a subclass of TraversalOrder",
        "Unknown cache type. Use 0 for process cache, 1 for os cache, or 2 for no cache.",
        "Dataset won't benefit from QuasiRandom order, use regular Random",
        # Ray
        "collate_fn cannot be used with dtypes and device.You should manually move the output "
        "Torch tensors to thedesired dtype and device outside of collate_fn.",
        "collate_fn cannot be used with dtypes and device. It is expected thatthe provided "
        "`collate_fn` will move the output Torch tensors to theappropriate dtype and device.",
        # TorchIO
        "The flag shuffle_subjects cannot be set when a subject sampler is passed",
        "shuffle_subjects must be False when subject_sampler is provided (the sampler controls "
        "the order)",
        # batchgenerators
        "Only use DataLoader instances that have infinite=True",
        # detectron2
        "total_batch_size and single_gpu_batch_size are mutually incompatible. Please specify "
        "only one.",
        "sampler must be None if dataset is IterableDataset",
        # dgl
        "Graph must be on CPU if UVA sampling is enabled.",
        "num_workers must be 0 if UVA sampling is enabled.",
        "num_workers must be 0 if graph and indices are on CUDA.",
        "pin_prefetcher=True is only effective when device=cuda and sampling is performed on CPU.",
        "use_prefetch_thread=True is only effective when device=cuda and sampling is performed "
        "on CPU.",
        "ERROR: affinity should be used with at least one DL worker",
        "ERROR: cpu_affinity incorrect number of loader_cores={} for num_workers={}",
        # fastai
        "Can only shuffle an indexed dataset (not an iterable one).",
        # mmsegmentation
        "unsupported dataloader {dataloader_type}",
        # pytorch-forecasting
        "batch_sampler '{x}' is not recognized.",
        "batch_sampler {x} unknown - see docstring for valid batch_sampler",
        # transformers
        "--dataloader_prefetch_factor can only be set when data is loaded in a different "
        "process, i.e. when --dataloader_num_workers > 0.",
    ),
    "invalid_sampler_args": (
        # AllenNLP
        "batch_size must be at least 1",
        # DeepSpeed
        "either sort_metric_values or shuffle_metric_values can be True, not both.",
        # ESPnet
        "The number of fold_lengths must be equal to the number of shape_files: "
        "{len(fold_lengths)} != {len(shape_files)}",
        "sort_batch must be ascending or descending: {sort_batch}",
        "The batch-size must be equal or more than world_size: {len(batch)} < {world_size}",
        "batch_size must be equal or more than world_size",
        # MMDetection / mmcv
        "sampler should be an instance of ``Sampler``, but got {sampler}",
        "batch_size should be a positive integer value, but got batch_size={batch_size}",
        # PyTorch-Ignite
        "Argument sampler should be instance of torch Sampler, but given: {type(sampler)}",
        "Argument sampler must not be a distributed sampler already",
        "Argument sampler should have length",
        # TRL
        "The effective train batch size ({num_processes} x {args.per_device_train_batch_size} x "
        "{args.gradient_accumulation_steps}) must be evenly divisible by the number of "
        "generations per prompt ({self.num_generations}). Given the current effective train "
        "batch size, the valid values for the number of generations are: {possible_values}.",
        # TorchIO
        "Patch dimensions must be positive integers, not {patch_size_array}",
        # accelerate
        "To use a `DataLoader` in `split_batches` mode, the batch size "
        "({dataloader.batch_size}) needs to be a round multiple of the number of processes "
        "({num_processes}).",
        "To use `BatchSamplerShard` in `split_batches` mode, the batch size ({self.batch_size}) "
        "needs to be a round multiple of the number of processes ({num_processes}).",
        "To use `IterableDatasetShard` in `split_batches` mode, the batch size ({batch_size}) "
        "needs to be a round multiple of the number of processes ({num_processes}).",
        # coqui TTS
        "Batch size must be divisible by number of classes times the number of data parallel "
        "devices (if enabled).",
        # detectron2
        "Total batch size ({}) must be divisible by the number of gpus ({}).",
        # lhotse
        "Duration bins must be sorted ascendingly.",
        # nemo
        "Cannot use bucket_batch_size option if bucket_duration_bins are not provided.",
        # pytorch-tabnet
        "Weights should be either 0, 1, dictionnary or list.",
        "Custom weights should match number of train samples.",
        "Please provide a list or np.array of weights for regression, multitask or pretraining: "
        "1 given.",
        "Please provide a list or np.array of weights for regression, multitask or pretraining: "
        "Dict given.",
        # sentence-transformers
        "The batch size for `GroupByLabelBatchSampler` must be divisible by 2.",
        "ContrastiveTensionDataLoader was loaded with a pos_neg_ratio of {pos_neg_ratio} and a "
        "batch size of {batch_size}. The batch size must be devisable by the pos_neg_ratio",
        # torchaudio / SpeechBrain
        "Dataset should be a Speechbrain DynamicItemDataset when using length function",
        "All elements in bucket boundaries should be >= 1.",
        "Bucket_boundaries should not contain duplicates.",
        "left_bucket_length must be >0 if no bucket_boundaries set",
        "bucket_length_multiplier must be >1.0 if no bucket_boundaries set",
        # torchdata
        "Invalid {self.stop_criteria=}. stop_criteria must be one of: "
        "CYCLE_UNTIL_ALL_DATASETS_EXHAUSTED, FIRST_DATASET_EXHAUSTED, ALL_DATASETS_EXHAUSTED",
        "Invalid {self.weights=}. For multi-dataset weighted sampling, keys of source_nodes and "
        "weights must be the same",
        "Invalid {self.weights=}. For multi-dataset weighted sampling, weights must be a 1d "
        "sequence, non-negative, and non-zero. Weights are used to sample from source nodes. "
        "Zero weight means the source node will never be sampled from, and can cause unexpected "
        "behavior depending on the stop criteris. Weights are used as inputs to "
        "torch.multinomial, please refer to https://pytorch.org/docs/stable/generated/"
        "torch.multinomial.html on how to use weights for sampling.",
    ),
    "iterable_dataset_no_len": (
        # LLaMA-Factory
        "Please specify `max_steps` in streaming mode.",
        # OpenCLIP
        "Currently, the number of dataset samples must be specified for the training dataset. "
        "Please specify it via `--train-num-samples` if no dataset length info is present.",
        "Currently, number of dataset samples must be specified for training dataset. Please "
        "specify via `--train-num-samples` if no dataset length info present.",
        # lightning
        "When using an `IterableDataset`, `Trainer(limit_{stage.dataloader_prefix}_batches)` "
        "must be `1.0` or an int. An int specifies `num_{stage.dataloader_prefix}_batches` to "
        "use.",
        "When using an IterableDataset for `train_dataloader`, `Trainer(val_check_interval)` "
        "must be time based, `1.0` or an int. An int k specifies checking validation every k "
        "training batches.",
        # ms-swift
        "Please specify `max_steps` in streaming mode.",
        # timm
        "Invalid split definition, num_samples not specified in train mode.",
        # transformers
        "The train_dataset does not implement __len__, so the number of training steps cannot "
        "be inferred; max_steps has to be specified. The total number of steps must be known in "
        "advance to bound the training loop and to configure the learning rate scheduler.",
        "args.max_steps must be set to a positive value if dataloader does not have a length, "
        "was {args.max_steps}",
    ),
    "iterable_duplicates": (
        # webdataset
        "you need to add an explicit nodesplitter to your input pipeline for multi-node training",
        "input pipeline needs to be reconfigured for multinode training",
    ),
    "label_format_mismatch": (
        # OGB
        "Number of tasks for {} should be {} but {} given",
        "y_true and y_pred mush to 2-dim arrray, {}-dim array given",
        "Shape of y_true and y_pred must be the same",
        # pytorch-tabnet
        "Given labels are of size {y.shape} while they should be (n_samples,) If attempting "
        "multilabel classification, try using TabNetMultiTaskClassification or TabNetRegressor",
        "y_train should be of shape (n_examples, n_tasks)but got {y_train.shape}",
        "You appear to be using a legacy multi-label data representation. Sequence of sequences "
        "are no longer supported; use a binary array or sparse matrix instead - the "
        "MultiLabelBinarizer transformer can convert to this format.",
        "Targets should be 2D : (n_samples, n_regression) but y_train.shape={y_train.shape} "
        "given. Use reshape(-1, 1) for single regression.",
        # sentence-transformers
        "ListNetLoss expects a list of labels for each sample, but got a single value for each "
        "sample.",
        # skorch
        "The target data should be 1-dimensional.",
        "The target data shouldn't be 1-dimensional; please reshape (e.g. y.reshape(-1, 1).",
        "The target data shouldn't be 1-dimensional but instead have 2 dimensions, with the "
        "second dimension having the same size as the number of regression targets (usually 1). "
        "Please reshape your target data to be 2-dimensional (e.g. y = y.reshape(-1, 1).",
    ),
    "label_out_of_range": (
        # AllenNLP
        "All labels should be < num_labels. Found num_labels = {} and labels = {}",
        # datasets
        "Class label {example_data:d} greater than configured num_classes {self.num_classes}",
        # detectron2
        "Got an invalid category_id={classes.min()}",
        "Got an invalid category_id={classes.max()} for a dataset of {num_classes} classes",
        # nnU-Net
        "Error: Unexpected labels found in file %s. Expected: %s Found: %s",
        "Some segmentation images contained unexpected labels. Please check text output above "
        "to see which one(s).",
    ),
    "lazy_manifest_needs_eager": (
        # lhotse
        "LazyFilter does not support __len__ because it would require iterating over the whole "
        "iterator, which is not possible in a lazy fashion. If you really need to know the "
        "length, convert to eager mode first using `.to_eager()`. Note that this will require "
        "loading the whole iterator into memory.",
        "LazyFlattener does not support __len__ because it would require iterating over the "
        "whole iterator, which is not possible in a lazy fashion. If you really need to know "
        "the length, convert to eager mode first using `.to_eager()`. Note that this will "
        "require loading the whole iterator into memory.",
    ),
    "library_bug": (
        # coqui TTS
        "[!] Dataset cannot parse the sample.",
    ),
    "lightning_hook_missing": (
        # lightning
        "An invalid dataloader was passed to "
        "`Trainer.{trainer_fn.value}({prefix}dataloaders=...)`. Found {dataloader}. Either pass "
        "the dataloader to the `.{trainer_fn.value}()` method OR implement `def "
        "{source.name}(self):` in your LightningModule/LightningDataModule.",
        "An invalid dataloader was returned from "
        "`{type(source.instance).__name__}.{source.name}()`. Found {dataloader}.",
        "`train_dataloader` must be implemented to be used with the Lightning Trainer",
        "`val_dataloader` must be implemented to be used with the Lightning Trainer",
        # torchgeo
        "{self.__class__.__name__}.setup does not define a 'train_dataset'",
    ),
    "loader_exhausted": (
        # DALI
        "It seems that there is no data in the pipeline. This may happen if `last_batch_policy` "
        "is set to PARTIAL and the requested batch size is greater than the shard size.",
        # accelerate
        "Batch does not contain any data (`{batch}`). At the end of all iterable data available "
        "before expected stop iteration.",
        # axolotl
        "eval dataset split is too small for sample_packing. You should set "
        "`eval_sample_packing: False` in your config.",
        # fastai
        "This DataLoader does not contain any batches",
        "Your training dataloader is empty, can't train a model. Use a smaller batch size "
        "(batch size={x} for {x} elements).",
    ),
    "log_batch_size_ambiguous": (
        # lightning
        "We could not infer the batch_size from the batch. Either simplify its structure or "
        "provide the batch_size as `self.log(..., batch_size=batch_size)`.",
    ),
    "map_output_length_mismatch": (
        # datasets
        "Column lengths mismatch: columns {bad_cols} have length {[len(processed_inputs[col]) "
        "for col in bad_cols]} while {first_col} has length {len(processed_inputs[first_col])}.",
        "Column lengths mismatch: columns {bad_cols} have length {[len(inputs[col]) for col in "
        "bad_cols]} while {first_col} has length {expected_length}. Make sure the mapped "
        "function returns all columns at the same length, or drop the offending input columns "
        "with `remove_columns`.",
    ),
    "media_tokens_mismatch": (
        # LLaMA-Factory
        "The number of images does not match the number of {IMAGE_PLACEHOLDER} tokens in "
        "{messages}.",
        "The number of images does not match the number of {IMAGE_PLACEHOLDER} tokens.",
        "The number of videos does not match the number of {VIDEO_PLACEHOLDER} tokens.",
        "The number of audios does not match the number of {AUDIO_PLACEHOLDER} tokens.",
        "`len(images)` is less than the number of {} tokens.",
        # LLaVA
        "assert DEFAULT_IMAGE_TOKEN in source[0]['value']",
        # TRL
        "Number of images provided ({len(images)}) does not match number of image placeholders "
        "({num_placeholders}).",
        # ms-swift
        "num_media: {num_media}, num_media_tags: {num_media_tags}, total_content: {total_content}",
        # torchtune
        "Number of images ({len(images)}) does not match number of image tags "
        "({num_image_tags_in_content}) in content: {content}",
        # transformers
        "The total number of {self.image_token} tokens in the prompts should be the same as the "
        "number of images passed. Found total {sum(n_images_in_text)} {self.image_token} tokens "
        "and {len(images)} images.",
        "Mismatch in `{modality}` token count between text and `input_ids`. Got ids={ids_count} "
        "and text={text_count}. Likely due to `truncation='max_length'`. Please disable "
        "truncation or increase `max_length`.",
    ),
    "missing_values_in_data": (
        # fastai
        "nan values in `{x}` but not in setup training set",
        # neuralforecast
        "Found missing values in {cols_with_nans}.",
        "Found null values in `futr_df`",
        # pytorch-forecasting
        "{x} ({x}) of {x} values were found to be NA or infinite (even after encoding). NA "
        "values are not allowed `allow_missing_timesteps` refers to missing rows, not to "
        "missing values. Possible strategies to fix the issue are (a) dropping the variable "
        "{x}, (b) using `NaNLabelEncoder(add_nan=True)` for categorical variables, (c) filling "
        "missing values and/or (d) optionally adding a variable indicating filled values",
        # pytorch-tabnet
        "Input contains {} or a value too large for {!r}.",
    ),
    "no_distributed_sampler": (
        # Composer
        "The world_size({world_size}) > 1 but dataloader does not use DistributedSampler. This "
        "will cause all ranks to train on the same data, removing any benefit from multi-GPU "
        "training. To resolve this, create a Dataloader with DistributedSampler. For example, "
        "DataLoader(..., sampler=composer.utils.dist.get_sampler(...)).Alternatively, the "
        "process group can be instantiated with composer.utils.dist.instantiate_dist(...) and "
        "DistributedSampler can directly be created with DataLoader(..., "
        "sampler=DistributedSampler(...)). For more information, see https://pytorch.org/docs/"
        "stable/data.html#torch.utils.data.distributed.DistributedSampler.",
    ),
    "not_a_dataset": (
        # DeepChem
        "input_files is of an unrecognized form. Must be one filename or a list of filenames.",
        # DeepSpeed
        "Training data must be a torch Dataset",
        # GluonTS
        "input must be a pair, or a pandas Series or DataFrame.",
        # OGB
        "This dataset has only one graph",
        # Ray
        "The Dataset under '{key}' key is not a `ray.data.Dataset`. Received {dataset} instead.",
        "At least one value in the `datasets` dict is not a `ray.data.Dataset`: {self.datasets}",
        # TorchIO
        "Subject list must be an iterable, not {type(subjects_list)}",
        # datasets
        "Dataset at position {i} has at least one split: {list(dataset)}\\nPlease pick one to "
        "interleave with the other datasets, for example: dataset['{next(iter(dataset))}']",
        # neuralforecast
        "`df` must be a pandas, polars or spark DataFrame, or a list of parquet files "
        "containing the series, or `None`, got: {type(df)}",
        # pytorch-tabnet
        "Pandas DataFrame are not supported: apply X.values when calling fit",
        # sentence-transformers
        "Unsupported `train_dataset` type. Use a Dataset, DatasetDict, or IterableDataset for "
        "training.",
        "Unsupported `eval_dataset` type. Use a Dataset, DatasetDict, or IterableDataset for "
        "evaluation.",
    ),
    "random_split_lengths": (
        # datasets
        "With n_samples={n_samples}, test_size={test_size} and train_size={train_size}, the "
        "resulting train set will be empty. Adjust any of the aforementioned parameters.",
        # dgl
        "Expect frac_list sum to 1, got {:.4f}",
        # torchgeo
        "{n_groups} groups were found, however the current settings of `train_size` and "
        "`test_size` result in 0 training or testing groups.",
        "`train_size` and `test_size` must sum to 1.",
        "Sum of input lengths must equal 1 or the length of dataset's index.",
        "Sum of input fractions must equal 1.",
        "Pairs of timestamps in lengths can't be out of dataset's time bounds.",
        # torchtext
        "Split ratio {} not between 0 and 1",
        "Length of split ratio list should be 2 or 3, got {}",
        "Split ratio must be float or a list, got {}",
    ),
    "response_template_not_found": (
        # TRL
        'Could not find response key {response_token_ids} in token IDs {batch["labels"][i]}',
    ),
    "resume_state_mismatch": (
        # Megatron-LM
        "no samples left to consume: {}, {}",
        # PyTorch-Ignite
        "Argument epoch_length should be same as in the state, but given {epoch_length} vs "
        "{self.state.epoch_length}",
        # fairseq
        "Cannot resume training due to dataloader mismatch, please report this to the fairseq "
        "developers. You can relaunch training with `--reset-dataloader` and it should work.",
        # lhotse
        "Cannot restore sampler with a different world_size (before load_state_dict(): "
        "{self.world_size},attempted restoring to {world_size}). Changing the world_size would "
        "result in different batches being returned from the sampler.",
        "Error in CutSampler.load_state_dict(): Unexpected keys:\\n-  + \\n- "
        ".join(state_dict.keys())",
        # lightning
        "The CombinedLoader has {len(stateful_loaders)} stateful loaders, but found "
        "{len(states)} states in the checkpoint. Please make sure you define the same "
        "dataloaders that were used when saving the checkpoint.",
        # litdata
        "The provided `num_workers` state doesn't match the current one. Found "
        "`{self.worker_env.world_size}` instead of `{state['num_workers']}`.",
        "The provided `shuffle` state doesn't match the current one. Found `{self.shuffle}` "
        "instead of `{state['shuffle']}`.",
        "The provided `input_dir` path state doesn't match the current one. Found "
        "`{self.input_dir.path}` instead of `{state['input_dir_path']}`.",
        "The provided `input_dir` URL state doesn't match the current one. Found "
        "`{self.input_dir.url}` instead of `{state['input_dir_url']}`.",
        "The provided `seed` state doesn't match the current one. Found `{self.seed}` instead "
        "of `{state['seed']}`.",
        "The provided `item_loader` state doesn't match the current one. Found "
        "`{self.item_loader.state_dict()}` instead of `{state['item_loader']}`.",
        "The provided `drop_last` state doesn't match the current one. Found `{self.drop_last}` "
        "instead of `{state['drop_last']}`.",
        # torchdata
        "State doesn't contain key '{self._NUM_YIELDED}' expected for single process dataloader",
        "State doesn't contain key '{self._SNAPSHOT}' expected for multiprocess dataloader",
        "last_yielded_worker_id does not match, the dataset may have changed",
    ),
    "sample_size_limit": (
        # fairseq
        "Size of sample #{} is invalid (={}) since max_positions={}, skip this example with "
        "--skip-invalid-size-inputs-valid-test",
        "sentence at index {} of size {} exceeds max_tokens limit of {}!",
        "sentence at index {idx} exceeds max_tokens limit!",
        # ms-swift
        "Failed to retrieve the dataset. You can avoid this issue by increasing `max_length` or "
        "modifying the `truncation_strategy`.",
        "Current length of row({length}) is larger than the max_length({self.max_length}).",
        # torchtune
        "Dataset sample is too long ({seq_len} > {self.max_seq_len}). Please set "
        "`split_across_pack=True` or increase `max_seq_len`.",
    ),
    "series_shorter_than_window": (
        # GluonTS
        "Reached maximum number of idle transformation calls. This means the transformation "
        "looped over {self.max_idle_transforms} inputs without returning any output. This "
        "occurred in the following transformation: {self}",
        # darts
        "The input `series` are too short to extract even a single sample. Expected min length: "
        "`{min_size_of_both_chunks}`, received max length: `{max(len(ts) for ts in series)}`.",
        "The dataset contains target `series` that are too short to extract even a single "
        "example. Expected min length: `{self.min_size_of_both_chunks}`, received length "
        "`{len(series)}` (at series sequence idx `{series_idx}`).",
        "The dataset contains target `series` that are too short to extract even a single "
        "example. Expected min length: `{min_length}`, received length `{len(series)}` (at "
        "series sequence idx `{series_idx}`).",
        "The dataset contains target `series` that are too short to extract the model input for "
        "prediction. Expected min length: `{self.min_input_chunk_length}`, received length "
        "`{len(series)}` (at series sequence idx `{series_idx}`).",
        "`{name}` must have at least `{minimum_len_str}` = {minimum_len} timesteps; instead, it "
        "only has {series.n_timesteps}.",
        "The dataset contains some covariates that do not have a sufficient time span to obtain "
        "a slice of length input_chunk_length matching the target",
        # neuralforecast
        "Time series is too short for training, consider setting a smaller input size or set "
        "start_padding_enabled=True",
        "No windows available for training",
        "`sizes` should be greater or equal to `h`.",
        "left_trim + right_trim ({left_trim} + {right_trim}) must be lower than the shorter "
        "time series ({dataset.min_size})",
        # pytorch-forecasting
        "filters should not remove entries all entries - check encoder/decoder lengths and lags",
        "Encoder length should be at least minimum encoder length",
        "Decoder length should be at least minimum prediction length",
        "Timeseries index should be of type integer",
        "Time difference between steps has been idenfied as larger than 1 - set "
        "allow_missing_timesteps=True",
        "allow_missing_timesteps should be True if sequences have gaps",
    ),
    "stale_dataset_cache": (
        # PyTorch Geometric
        "The 'data' object was created by an older version of PyG. If this error occurred while "
        "loading an already existing dataset, remove the 'processed/' directory in the "
        "dataset's root folder and try again.",
        # coqui TTS
        "[!] total duration {dur.sum()} vs spectrogram length {mel_lengths[idx]}",
        # nnU-Net
        "Found more than one file ending in the folder {folder}. Unable to infer nnUNetDataset "
        "variant!",
    ),
    "streaming_local_dir_reuse": (
        # mosaic
        "Reused local directory: {duplicate_local_dirs}. Provide a different one.",
        "Reused local directory: {streams_local} vs {their_locals}. Provide a different one. If "
        "using a unique local directory, try deleting the local directory and call "
        "`streaming.base.util.clean_stale_shared_memory()` only once in your script to clean up "
        "the stale shared memory before instantiation of `StreamingDataset`.",
    ),
    "timeout": (
        # dgl
        "Prefetcher thread timed out at {prefetcher_timeout} seconds.",
    ),
    "tokenizer_no_pad_token": (
        # OpenCLIP
        "variable_text=True requires a tokenizer with a reserved `pad_token_id`.",
        # TRL
        "The specified `pad_token` ('{pad_token}') is not found in the vocabulary of the given "
        "`processing_class` ({processing_class.__class__.__name__}). Ensure that the "
        "`pad_token` exists in the vocabulary before using it as a padding token.",
        "The tokenizer does not have a pad token. Please set `pad_token_id` in the tokenizer.",
        "Padding is enabled, but the tokenizer is not configured with a padding token. "
        "Explicitly set `tokenizer.pad_token` (e.g. `tokenizer.pad_token = "
        "tokenizer.eos_token`) before calling the trainer.",
        # transformers
        "Asking to pad but the tokenizer does not have a padding token. Please select a token "
        "to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new "
        "pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.",
        "You are attempting to pad samples but the tokenizer you are using "
        "({tokenizer.__class__.__name__}) does not have a pad token.",
    ),
    "too_few_shards": (
        # OpenCLIP
        "number of shards must be >= total workers",
        # datasets
        "Cannot iterate with strategy='shards': the dataset now has "
        "num_shards={ex_iterable.num_shards}, which is lower than world_size={world_size}, so "
        "some nodes would not be assigned any shard.",
        "Cannot split an iterable dataset with num_shards={dataset._ex_iterable.num_shards} "
        "across world_size={world_size} nodes with strategy='shards' because some nodes would "
        "not be assigned any shard.",
        # webdataset
        "No samples found in dataset; perhaps you have fewer shards than workers.\\nTurn off "
        "using empty_check=False in the WebDataset constructor.",
    ),
    "too_many_workers": (
        # dgl
        "ERROR: more workers than available cores",
    ),
    "trainer_dataset_args": (
        # TRL
        "The `completion_only_loss` argument is not supported for language modeling datasets.",
        "Padding to a multiple of a value is not yet implemented for vision-language modeling "
        "and prompt-completion data.",
        "Packing is not supported for vision-language models. Please set `packing=False` in the "
        "SFTConfig.",
        "Passing a custom data collator is not supported when using padding-free.",
        "You set `assistant_only_loss=True`, but the dataset is not conversational. This option "
        "is only supported for conversational datasets.",
        "When `padding_free=True` without packing, `max_length` is not enforced. Either enable "
        "packing (e.g., `packing=True, packing_strategy='bfd'`), provide already truncated "
        "inputs, or set `max_length=None`.",
        "A formatting function was provided while `completion_only_loss=True`, which is "
        "incompatible. Using a formatter converts the dataset to a language modeling type, "
        "conflicting with completion-only loss. To resolve this, apply your formatting function "
        "before passing the dataset, or disable `completion_only_loss` in `SFTConfig`.",
        "When packing is enabled, `max_length` can't be `None`.",
        "Either `dataset_text_field` or `formatting_func` should be provided.",
        "You passed `packing=False` to the SFTTrainer, but you didn't pass a "
        "`dataset_text_field` or `formatting_func` argument.",
        "You passed `packing=False` to the SFTTrainer/SFTConfig, but you didn't pass a "
        "`dataset_text_field` or `formatting_func` argument.",
        "You need to pass a `dataset_text_field` or `formatting_func` argument to the "
        "SFTTrainer if you want to use the `ConstantLengthDataset`.",
        "The `formatting_func` should return a list of processed strings since it can lead to "
        "silent bugs.",
        # unsloth
        "Unsloth: You must specify a `formatting_func`",
    ),
    "trainer_removes_columns": (
        # transformers
        "No columns in the dataset match the model's forward method signature: ({', "
        "'.join(signature_columns)}). The following columns have been ignored: [{', "
        "'.join(ignored_columns)}]. Please check the dataset and model. You may need to set "
        "`remove_unused_columns=False` in `TrainingArguments`.",
        "The batch received was empty, your model won't be able to train on it. Double-check "
        "that your training dataset contains keys expected by the model: "
        "{','.join(self._signature_columns)}.",
    ),
    "transform_input_type": (
        # MMDetection / mmcv
        "img must be a numpy array or a str or a pathlib.Path object",
        # albumentations / kornia
        "{data_name} must be numpy array type",
        "{data_name} must be list of numpy arrays",
        "{data_name} must be a 3D or 4D numpy array",
        "All elements in {data_name} must be numpy arrays",
        "All masks in {data_name} must be 2D or 3D numpy arrays",
        "Albumentations only supports images in HW or HWC format",
        "Input type is not a Tensor. Got {type(input)}",
        "Input size must have a shape of either (H, W), (C, H, W) or (*, C, H, W). Got "
        "{input.shape}",
        "Expected input shape in {required_shape}. Got {shape}.",
        "Expect input of 5 dimensions, got {input_shape} instead",
        # detectron2
        "Expect segmentation of 2 dimensions, got {}.",
        "[Augmentation] Needs an numpy array, but got a {}!",
        # torchvision
        "pic should be PIL Image or ndarray. Got {type(pic)}",
        "pic should be PIL Image. Got {type(pic)}",
        "img should be PIL Image. Got {type(img)}",
        "img should be Tensor Image. Got {type(tensor)}",
        "Input tensor should be a float tensor. Got {tensor.dtype}.",
        "{type(self).__name__}() does not support PIL images.",
        "Functional F.{functional.__name__} supports inputs of type {registry.keys()}, but got "
        "{input_type} instead.",
        "No image, video, mask or bounding box was found in the sample",
    ),
    "transform_returns_wrong_value": (
        # nnU-Net
        "Transform returned inconsistent segmentation structure across batch",
        # torchtune
        "model_transform returned the following keys: {keys_str}. Must return 'tokens' and "
        "'mask' as keys.",
    ),
    "uneven_batches_per_rank": (
        # lightning
        "`{dataloader_cls_name}` within local rank has zero length. Please make sure that it "
        "returns at least 1 batch.",
    ),
    "unseen_category_in_validation": (
        # AllenNLP
        "'{token}' not found in vocab namespace '{namespace}', and namespace does not contain "
        "the default OOV token ('{self._oov_token}')",
        # fastai
        "Label '{x}' was not included in the training dataset",
        "Labels '{x}' were not included in the training dataset",
        # pytorch-forecasting
        "Unknown category '{x}' encountered. Set `add_nan=True` to allow unknown categories",
        # pytorch-tabnet
        "Valid set -- {set(valid_labels)} -- contains unkown targets from training -- "
        "{set(labels)}",
        # torchtext
        "Token {token} not found and default index is not set",
    ),
    "wds_duplicate_keys": (
        # datasets
        "Duplicate field {field_name!r} for sample {example_key!r} in TAR archive {tar_path!r}",
        # webdataset
        "{fname}: duplicate file name in tar file {suffix} {current_sample.keys()}",
    ),
    "worker_cpu_affinity": (
        # dgl
        "ERROR: cannot use affinity id={} cpu={}",
    ),
    "worker_exception": (
        # SlowFast
        "Failed to fetch video after {} retries.",
    ),
    "worker_exited": (
        # datasets
        "One of the subprocesses has abruptly died during map operation.To debug the error, "
        "disable multiprocessing.",
        # torchdata
        "A worker has failed during startup! {self._workers_status}",
        "A worker has failed during Resume! {self._workers_status}",
    ),
}

WARNED: dict[str, tuple[str, ...]] = {
    "audio_backend_missing": (
        # torchaudio / SpeechBrain
        "SpeechBrain could not find any working torchaudio backend. Audio files may fail to "
        "load. Follow this link for instructions and troubleshooting: https://"
        "speechbrain.readthedocs.io/en/latest/audioloading.html",
    ),
    "collate_size_mismatch": (
        # fastai
        "It's not possible to collate samples of your dataset together in a batch. Shapes of "
        "the inputs/targets: {x}",
        # monai
        "{l_str} E: {e}, shape {[elem.shape for elem in batch]} in collate({batch_str})",
        "{l_str} collate list inconsistent sizes, got size: {sizes}, in collate({batch_str})",
    ),
    "collate_unsupported_type": (
        # monai
        "{l_str} E: {e}, type {[type(elem).__name__ for elem in batch]} in collate({batch_str})",
        "{l_str} E: unsupported type in collate {batch_str}.",
    ),
    "column_not_found": (
        # RecBole
        "No columns has been loaded from [{source}]",
    ),
    "corrupt_annotations": (
        # OpenNMT-py
        "Bad alignement line exists. Please check file!",
        # YOLOv5
        "{prefix}WARNING: {im_file}: ignoring corrupt image/label: {e}",
        "WARNING: Ignoring corrupted image and/or label %s: %s",
        # coqui TTS
        "> Missing column in line {idx + 1} -> {line.strip()}",
        # detectron2
        "{json_file} contains {total_num_anns} annotations, but only {total_num_valid_anns} of "
        "them match to images in the file.",
        "Filtered out {} instances without valid segmentation. There might be issues in your "
        "dataset generation process.  Please check https://detectron2.readthedocs.io/en/latest/"
        "tutorials/datasets.html carefully",
        # ultralytics
        "{prefix}{im_file}: ignoring corrupt image/label: {e}",
        "Box and segment counts should be equal, but got len(segments) = {len_segments}, "
        "len(boxes) = {len_boxes}. To resolve this only boxes will be used and all segments "
        "will be removed. To avoid this please supply either a detect or segment dataset, not a "
        "detect-segment mixed dataset.",
    ),
    "dataset_config_invalid": (
        # Megatron-LM
        "Let mock = True, as both blend and blend_per_split are None",
        # OpenNMT-py
        "path_tgt is None, it should be set unless the task is language modeling",
        # mmpose
        "dataset_info is missing. Check https://github.com/open-mmlab/mmpose/pull/663 for details.",
        # nnU-Net
        "Warning: Unable to find ioclass specified in dataset.json: {ioclass_name}",
    ),
    "dataset_download_race": (
        # nemo
        "Torch distributed is not initialized and caching may be prone to data race conditions. "
        "Now caching data from global rank 0. If there are other ranks and they pass this "
        "before rank 0, errors might result.",
    ),
    "dataset_download_refused": (
        # YOLOv5
        "⚠️ Download failure, retrying {i + 1}/{retry} {url}...",
    ),
    "dataset_layout_mismatch": (
        # YOLOv5
        "{prefix}WARNING: No labels found in {path}. See {HELP_URL}",
        # nemo
        "You are using Lhotse dataloading for tarred audio with a non-sharded manifest. This "
        "will incur significant memory overhead and slow-down training. To prevent this error "
        "message please shard file '{self.paths[0]}' using 'scripts/speech_recognition/"
        "convert_to_tarred_audio_dataset.py' WITHOUT '--no_shard_manifest'",
        # ultralytics
        "{self.prefix}No labels found in {path}. {HELP_URL}",
        "Labels are missing or empty in {cache_path}, training may not work correctly. {HELP_URL}",
        "Dataset 'split=train' not found at {train_set}",
    ),
    "dataset_not_downloaded": (
        # LLaMA-Factory
        "Media {medias[i]} does not exist in `media_dir`. Use original path.",
        # coqui TTS
        "| > [!] {not_found_counter} files not found",
        "[!] {wav_file} in metafile does not exist. Skipping...",
        "[!] {len(skipped_files)} files skipped. They don't exist...",
        # ultralytics
        "Dataset not found, missing path {data_dir}, attempting download...",
    ),
    "dataset_not_registered": (
        # detectron2
        "The following dataset names are not registered in the DatasetCatalog: {names_set - "
        "available_datasets}. Available datasets are {available_datasets}",
    ),
    "dataset_retry_recursion": (
        # detectron2
        "Failed to apply `_map_func` for idx: {}, retry count: {}",
    ),
    "dependency_version_mismatch": (
        # MMDetection / mmcv
        'mmpycocotools is deprecated. Please install official pycocotools by "pip install '
        'pycocotools"',
        # dgl
        "use_alternate_streams is turned off because TensorAdaptor is not available.",
        # torchaudio / SpeechBrain
        "This version of torchaudio is old. SpeechBrain no longer tries using the torchaudio "
        "global backend mechanism in recipes, so if you encounter issues, update torchaudio.",
    ),
    "distributed_not_initialized": (
        # nemo
        "Manifest sharding was requested but torch.distributed is not initialized Did you "
        "intend to set the defer_setup flag?",
    ),
    "empty_dataset": (
        # lightning
        "Total length of `{type(dataloader).__name__}` across ranks is zero. Please make sure "
        "this was your intention.",
        "`{dataloader.__class__.__name__}` returned 0 length. Please make sure this was your "
        "intention.",
        "`Trainer.fit` stopped: No training batches.",
        # torchgeo
        "Could not find any relevant files for provided path '{path}'. Path was ignored.",
        # torchtune
        "Dataset {self.info.name} epoch {self._num_epochs} yielded 0 samples - potential issue!",
        # ultralytics
        "No images found in {data_dir} or its subdirectories.",
        "{prefix} found {nf} images in {nd} classes (no images found)",
        "{prefix} found {nf} images in {nd} classes (requires {nc} classes, not {nd})",
    ),
    "framework_rebuilds_loader": (
        # Ray
        "The {loader.sampler.__class__.__name__} will be overwritten with a DistributedSampler. "
        "You can disable this by setting `with_sampler` to False in `prepare_data_loader`.",
    ),
    "group_by_length_unsupported": (
        # transformers
        "`train_sampling_strategy='{self.args.train_sampling_strategy}'` is ignored because the "
        "training dataset does not implement `__len__` (e.g. an `IterableDataset`). Examples "
        "will be consumed in the dataset's own order.",
    ),
    "harmless_worker_warning": (
        # AllenNLP
        "Using multi-process data loading without setting "
        "DatasetReader.manual_multiprocess_sharding to True. Did you forget to set this? If "
        "you're not handling the multi-process sharding logic within your _read() method, there "
        "is probably no benefit to using more than one worker.",
        "Can't cache data instances when there are multiple processes loading data",
        # dgl
        "Dataloader CPU affinity opt is not enabled, consider switching it on (see "
        "enable_cpu_affinity() or CPU best practices for DGL [{link}])",
        # lhotse
        "You are using DynamicBucketingSampler with an eagerly read CutSet. You won't see any "
        "memory/speed benefits with that setup. Either use 'CutSet.from_jsonl_lazy' to read the "
        "CutSet lazily, or use a BucketingSampler instead.",
        "You are using DynamicCutSampler with an eagerly read CutSet. You won't see any memory/"
        "speed benefits with that setup. Use e.g. 'CutSet.from_jsonl_lazy' to read the CutSet "
        "lazily.",
        "In Lhotse v1.4 all samplers act as if 'strict=True'. Sampler's argument 'strict' will "
        "be removed in a future Lhotse release.",
        # nemo
        "You are using a non-tarred dataset and requested tokenization during data sampling "
        "(pretokenize=True). This will cause the tokenization to happen in the main (GPU) "
        "process,possibly impacting the training speed if your tokenizer is very large.If the "
        "impact is noticable, set pretokenize=False in dataloader config.(note: that will "
        "disable token-per-second filtering and 2D bucketing features)",
        # nnU-Net
        "Data doesn't seem to have been unpacked. This makes loading slow! Consider enabling "
        "unpacking",
        "Seg doesn't seem to have been unpacked. This makes loading slow! Consider enabling "
        "unpacking",
        # transformers
        "`non_blocking` is enabled but `dataloader_pin_memory` is not. For the best "
        "performance, it's recommended to enable both.",
    ),
    "hub_dataset_inaccessible": (
        # ms-swift
        "Dataset {dataset_id} load failed: subset_name={subset.subset},split={split} with "
        "error: {e}",
    ),
    "image_cache_oom": (
        # YOLOX
        "{mem_required / gb:.1f}GB RAM required, {mem.available / gb:.1f}/{mem.total / "
        "gb:.1f}GB RAM available, Since the first thing we do is cache, there is no guarantee "
        "that the remaining memory space is sufficient",
        # ultralytics
        "{self.prefix}{mem_required / gb:.1f}GB RAM required to cache images",
    ),
    "image_processor_channels": (
        # transformers
        "The channel dimension is ambiguous. Got image shape {image.shape}. Assuming channels "
        "are the first dimension. Use the [input_data_format](https://huggingface.co/docs/"
        "transformers/main/internal/"
        "image_processing_utils#transformers.image_transforms.rescale.input_data_format) "
        "parameter to assign the channel dimension.",
    ),
    "invalid_loader_args": (
        # sentence-transformers
        "When using an IterableDataset, you cannot specify a batch sampler.",
    ),
    "iterable_duplicates": (
        # lightning
        "Your `IterableDataset` has `__len__` defined. In combination with multi-process data "
        "loading (when num_workers > 1), `__len__` could be inaccurate if each worker is not "
        "configured independently to avoid having duplicate data.",
    ),
    "label_format_mismatch": (
        # mmsegmentation
        "Please pay attention your ground truth segmentation map, usually the segmentation map "
        'is 2D, but got {results["gt_seg_map"].shape}',
    ),
    "loader_exhausted": (
        # PyTorch-Ignite
        "Data iterator can not provide data anymore but required total number of iterations to "
        "run is not reached. Current iteration: {self.state.iteration} vs Total iterations to "
        "run : {total_iters}",
        # fastai
        "Your training dataloader is empty, you have only {x} items in your training set. Your "
        "batch size is {x}, you should lower it.",
        # transformers
        "There seems not to be a single sample in your epoch_iterator, stopping training at "
        "step {self.state.global_step}! This is expected if you're using an IterableDataset and "
        "set num_steps ({self.state.max_steps}) higher than the number of available samples.",
    ),
    "log_batch_size_ambiguous": (
        # lightning
        "Trying to infer the `batch_size` from an ambiguous collection. The batch size we found "
        "is {batch_size}. To avoid any miscalculations, use `self.log(..., "
        "batch_size=batch_size)`.",
    ),
    "missing_values_in_data": (
        # RecBole
        "In inter_feat, line {list(dropped_inter + 2)}, {field} do not exist, so they will be "
        "removed.",
        # TorchIO
        'NaNs found in file "{path}"',
        "NaNs found in tensor",
    ),
    "network_mount_limits": (
        # Megatron-LM
        "[{time_str}] Attempt {i + 1}/{self.num_max_retries + 1} to read data item failed with "
        'exception "{e}"; going to sleep for {sleep_duration} seconds and then re-try...',
        "[{time_str}] {self.num_max_retries + 1} total tries to read data item failed; going to "
        'abort and re-raise exception "{e}"...',
    ),
    "no_distributed_sampler": (
        # PyTorch-Ignite
        "Found batch_sampler in provided kwargs. Please, make sure that it is compatible with "
        "distributed configuration",
    ),
    "pickle_local_object": (
        # lhotse
        "A lambda was passed to LazyFilter: it may prevent you from forking this process. If "
        "you experience issues with num_workers > 0 in torch.utils.data.DataLoader, try passing "
        "a regular function instead.",
        "A lambda was passed to LazyMapper: it may prevent you from forking this process. If "
        "you experience issues with num_workers > 0 in torch.utils.data.DataLoader, try passing "
        "a regular function instead.",
    ),
    "pin_memory_thread": (
        # batchgenerators
        "Exception in pin_memory_loop",
        # lightning
        "The combination of `DataLoader(`pin_memory=True`, `persistent_workers=True`) and "
        "`Trainer(reload_dataloaders_every_n_epochs > 0)` can lead to instability due to "
        "limitations in PyTorch (https://github.com/pytorch/pytorch/issues/91252). We recommend "
        "setting `pin_memory=False` in this case.",
    ),
    "remote_storage_overloaded": (
        # datasets
        "Got disconnected from remote data host. Retrying in "
        "{config.STREAMING_READ_RATE_LIMIT_RETRY_INTERVAL}sec [{retry}/{max_retries}]",
    ),
    "response_template_not_found": (
        # unsloth
        "Unsloth: Removed {n_removed} out of {n_before} samples from {dataset_name} where all "
        "labels were -100",
    ),
    "resume_skips_batches": (
        # torchdata
        "Neither dataset nor iter(dataset) defines state_dict/load_state_dict so we are naively "
        "fast-forwarding your dataset by {self._num_yielded} steps. For more efficient resumes, "
        "please implement `state_dict` and `load_state_dict` in your IterableDataset and/or "
        "iterator.",
        # transformers
        "Fast-forwarding the dataloader past {epochs_trained} epochs and "
        "{steps_trained_in_current_epoch} batches to resume from the exact training state.",
    ),
    "resume_state_mismatch": (
        # lhotse
        "Overriding the shuffle value in CutSampler based on state_dict(initialized to "
        "{self.shuffle}; restored to {shuffle}).",
    ),
    "sample_size_limit": (
        # AllenNLP
        "Found instance of size %d, which is bigger than the expected size for a batch (%d)",
        # DeepSpeed
        "Data indices {long_ids} ignored as metrics exceed {max_metric_value_per_batch}.",
        # LLaMA-Factory
        "Dropped lengthy example with length {length} > {self.data_args.cutoff_len}.",
        # axolotl
        "Dropped {dropped} long samples from dataset index {i}",
        # fairseq
        "{} samples have invalid sizes and will be skipped, max_positions={}, first few sample "
        "ids={}",
        # lhotse
        "The first cut drawn in batch collection violates the max_frames, max_cuts, or "
        "max_duration constraints - we'll return it anyway. Consider increasing max_frames/"
        "max_cuts/max_duration.",
        # torchtune
        "Dropping sample with size {sample_size} > target_tokens_per_pack "
        "{self.target_tokens_per_pack}.",
    ),
    "series_shorter_than_window": (
        # neuralforecast
        "Validation set size is larger than the shorter time-series.",
        "Validation and test sets are larger than the shorter time-series.",
        # pytorch-forecasting
        "Min encoder length and/or min_prediction_idx and/or min prediction length and/or lags "
        "are too large for {x} series/groups which therefore are not present in the dataset "
        "index. This means no predictions can be made for those series. First 10 removed "
        "groups: {x}",
    ),
    "slow_storage": (
        # ultralytics
        "{prefix}Slow image access detected ({ping_msg}{speed_msg}{size_msg}). Use local "
        "storage instead of remote/mounted storage for better performance. See https://"
        "docs.ultralytics.com/guides/model-training-tips/",
    ),
    "stale_dataset_cache": (
        # LLaMA-Factory
        "Loading dataset from disk will ignore other data arguments.",
        # OGB
        "MAG240M dataset has been updated.",
        "PCQM4Mv2 dataset has been updated.",
        # PyTorch Geometric
        "The `pre_transform` argument differs from the one used in the pre-processed version of "
        "this dataset. If you want to make use of another pre-processing technique, pass "
        "`force_reload=True` explicitly to reload the dataset.",
        "The `pre_filter` argument differs from the one used in the pre-processed version of "
        "this dataset. If you want to make use of another pre-fitering technique, pass "
        "`force_reload=True` explicitly to reload the dataset.",
        "The `pre_transform` argument differs from the one used in the pre-processed version of "
        "this dataset. If you really want to make use of another pre-processing technique, make "
        "sure to delete `{}` first.",
        # detectron2
        "Using previously cached COCO format annotations at '{output_file}'. You need to clear "
        "the cache file if your dataset has been modified.",
    ),
    "too_few_shards": (
        # datasets
        "Too many dataloader workers: {worker_info.num_workers} (max is "
        "dataset.num_shards={ex_iterable.num_shards}). Stopping {worker_info.num_workers - "
        "ex_iterable.num_shards} dataloader workers.",
        # nemo
        "Number of shards in tarred dataset ({len(sharded_filepaths)}) is not divisible by "
        "number of distributed workers ({world_size}).",
        # pytorchvideo
        "More data workers({worker_info.num_workers}) than videos({len(self._sampler)}). For "
        "optimal use of processes reduce num_workers.",
    ),
    "trainer_dataset_args": (
        # TRL
        "You passed a dataset that is already processed (contains an `input_ids` field) "
        "together with a formatting function. Therefore `formatting_func` will be ignored. "
        "Either remove the `formatting_func` or pass a dataset that is not already processed.",
        "Only one of `dataset_text_field` and `formatting_func` should be provided. Ignoring "
        "`dataset_text_field` and using `formatting_func`.",
        "The passed formatting_func has more than one argument. Usually that function should "
        "have a single argument `example` which corresponds to the dictionary returned by each "
        "element of the dataset. Make sure you know what you are doing.",
    ),
    "trainer_removes_columns": (
        # transformers
        "The following columns {dset_description} don't have a corresponding argument in "
        "`{self.model.__class__.__name__}.forward` and have been ignored: {', "
        "'.join(ignored_columns)}. If {', '.join(ignored_columns)} are not expected by "
        "`{self.model.__class__.__name__}.forward`,  you can safely ignore this message.",
    ),
    "uneven_batches_per_rank": (
        # lightning
        "Total length of `{dataloader_cls_name}` across ranks is zero, but local rank has zero "
        "length. Please be cautious of uneven batch length.",
        # litdata
        "You're operating within a distributed environment and have disabled the `drop_last` "
        "option. Please note that this configuration may lead to training interruptions if your "
        "system depends on distributed collectives.",
    ),
    "unseen_category_in_validation": (
        # pytorch-forecasting
        "Found {x} unknown classes which were set to NaN",
    ),
    "worker_exception": (
        # AllenNLP
        "worker raised {original_err_repr} Traceback from worker:",
        # SlowFast
        "Failed to meta load video idx {} from {}; trial {}",
        "Failed to decode video idx {} from {}; trial {}",
        # batchgenerators
        "Exception in background worker %d:",
    ),
    "worker_exited": (
        # batchgenerators
        "One or more background workers are no longer alive. Exiting. Please check the print "
        "statements above for the actual error message",
        "Abort event was set. So someone died and we should end this madness. IMPORTANT: This "
        "is not the actual error message! Look further up to see what caused the error. Please "
        "also check whether your RAM was full",
        "MultiThreadedAugmenter.abort_event was set, something went wrong. Maybe one of your "
        "workers crashed. This is not the actual error message! Look further up your stdout to "
        "see what caused the error. Please also check whether your RAM was full",
        "MultiThreadedAugmenter.abort_event was set, something went wrong. Maybe one of your "
        "workers crashed",
    ),
}
