"""What the loader delivers that the model or the loss refuses: the batch's dtype, layout
and number of features, the labels' range and format."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "batch_channels_last", "the images arrive height x width x channels",
        (text(r"expected input\[\d+, (\d+), \1, (?:1|3|4)\] to have (?:1|3|4) channels, but "
              r"got \1 channels instead", 4, key=True),
         text(r"expected input\[[\d, ]+\] to have \d+ channels, but got \d+ channels", 1.5,
              key=True)),
        "the dataset returns images as height x width x channels (as numpy, OpenCV and PIL "
        "arrays are), and nothing turns them into channels x height x width before the "
        "convolution, which then reads a dimension of the image as its channels",
        "print(batch_images.shape): the last dimension is 3 (or 1)",
        "convert in the dataset: transforms.ToTensor() on a PIL image or HWC array, or "
        "torch.from_numpy(img).permute(2, 0, 1)",
        priority=86),
    Signature(
        "label_out_of_range", "labels outside 0..classes-1",
        (text(r"Target\s*-?\d+ is out of bounds", 4, key=True),
         # told in words (any language): targets outside the classes
         text(near(r"\b(?:target|label)s?\b|标签", r"以外的分类|超出|out of (?:range|bounds)|"
                   r"outside (?:the )?(?:range|classes)", 80), 2.5, key=True),
         # a hidden folder ImageFolder counts as one more class
         text(near(r"\.ipynb_checkpoints", r"\bclass\w*|ImageFolder|\bindex\b", 300), 3,
              key=True),
         text(r"t >= 0 && t < n_classes|cur_target >= 0 && cur_target < n_classes", 4,
              key=True)),
        "the loss takes class indices 0..C-1; the dataset delivers others: 1-based ids, -1 "
        "for 'unlabelled', a mask's grey values (0-255) where class ids were meant, or one "
        "class more than the model has (ImageFolder counts a hidden .ipynb_checkpoints "
        "folder as a class); on the GPU the same failure is a device-side assert",
        "print(labels.min(), labels.max()) over a few batches, against the model's number "
        "of classes",
        "map the labels to 0..C-1 in the dataset (mask // 255, id - 1, a lookup table), "
        "set the model's class count to match, or ignore_index= for 'unlabelled'",
        priority=86),
    Signature(
        "batch_dtype_mismatch", "the loader delivers a dtype the model or the loss does not "
        "take",
        (text(r"Input type \(torch\.(?:cuda\.)?DoubleTensor\) and weight type \(torch\."
              r"(?:cuda\.)?FloatTensor\) should be the same", 4, key=True),
         text(r"expected scalar type Float but found Double|Found dtype Double but expected "
              r"Float", 3.5, key=True),
         # the same in torch 2.x's words
         text(r"Input type \(double\) and (?:bias|weight) type \(float\) should be the same"
              r"|mat1 and mat2 must have the same dtype, but got Double and Float", 3.5,
              key=True),
         text(r"expected target dtype to be Long or Byte, but got (?:Int|Float|Short)", 4,
              key=True),
         # Apple's MPS has no float64: numpy's default dtype fails on the move to the device
         text(r"Cannot convert a MPS Tensor to float64 dtype", 4, key=True),
         text(r"expected scalar type Long but found Int|Expected object of scalar type Long "
              r"but got scalar type Int|Expected object of scalar type Long but got scalar "
              r"type Float for argument #2 'target'", 4, key=True),
         text(r"(?i)\bfloat64\b|\bastype\(\s*['\"]?long|\bnp\.(?:float64|int32)\b|"
              r"/\s*255\.(?!\d)", 1)),
        "tensors take the dtype of the numpy arrays the dataset returns: float64 inputs "
        "(numpy's default, an image / 255.) meet float32 weights, and int32 labels "
        "(astype('long') is int32 on Windows) meet a loss that wants int64 class indices",
        "print(batch_inputs.dtype, batch_labels.dtype)",
        "cast in the dataset: inputs .astype(np.float32) or torch.as_tensor(x, "
        "dtype=torch.float32), labels torch.as_tensor(y, dtype=torch.long)",
        priority=86),
    Signature(
        "label_format_mismatch", "the labels come in a shape the loss does not expect",
        (text(r"Target size \(torch\.Size\(\[[\d, ]+\]\)\) must be the same as input size",
              4, key=True),
         text(near(r"one[- ]hot", r"\blabels?\b|\btargets?\b", 150), 1)),
        "the loss compares targets shaped like the model's output (BCE: one column per "
        "class, one-hot or multi-hot), and the dataset delivers another shape (a class "
        "index per sample)",
        "print(batch_labels.shape) against the model output's shape",
        "return labels in the loss's format from the dataset (one-hot for BCEWithLogitsLoss, "
        "class indices for CrossEntropyLoss), or pick the loss that matches the labels",
        priority=86),
    Signature(
        "cutmix_mixup_per_sample", "CutMix or MixUp is applied to single samples, not "
        "batches",
        (text(near(r"\b(?:CutMix|MixUp)\b", r"\bbatch(?:ed|_size)?\b|\btransforms?\b",
                   200), 1.5, key=True),),
        "torchvision's v2.CutMix and v2.MixUp mix the samples of a batch with each other, "
        "so they take a batch (N x C x H x W images with 1-D integer labels), not one "
        "sample; placed in the dataset's transform (a Compose applied per item) they get a "
        "PIL image or a 3-D tensor and a scalar label",
        "print(images.shape, labels.shape) where CutMix/MixUp is called: it should be "
        "(N, C, H, W) and (N,)",
        "apply them after batching: in collate_fn (lambda b: cutmix(*default_collate(b))) "
        "or on the batch in the training loop, with integer labels",
        priority=86, explains=("worker_exception", "transform_input_type")),
    Signature(
        "code_assumes_batch_size_one", "the project's data and loss code only handle a batch "
        "of one",
        (text(near(r"\bbatch[_ ]?size\b", r"\b(?:bigger|larger|greater|more) than [12]\b|"
                   r"\bonly (?:supports?|works?|handles?) (?:a )?(?:batch[_ ]?size )?(?:=\s*|of "
                   r")?1\b|\bsupport batch[_ ]?size\s*>\s*1\b", 80), 2, key=True),
         text(r"The size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at "
              r"non-singleton dimension", 1)),
        "the repository's loader, collate or loss was written for one sample per batch "
        "(variable-size samples returned as they are, squeezes, per-sample loops over "
        "dimension 0): with batch_size > 1 the shapes of the batch no longer fit that code",
        "run with batch_size=1: it works; the README or the default config uses 1",
        "keep batch_size=1 (accumulate gradients for a larger effective batch), or pad the "
        "samples in a collate_fn and make the loss take the batch dimension",
        priority=80),
    Signature(
        "feature_count_mismatch", "the batches carry another number of features than the "
        "model was built for",
        (text(r"input\.size\(-1\) must be equal to input_size\. Expected \d+, got \d+", 3,
              key=True),
         text(near(r"\bencoder_cont\b|\btime_varying_\w+_reals\b", r"\bshape\b|\bdifferent\b|"
                   r"\bmismatch\b", 600), 1)),
        "a recurrent layer (LSTM, GRU) checks the last dimension of its input against the "
        "input_size it was built with, and the dataset yields another number of feature "
        "columns: a column listed twice in the dataset's feature lists (pytorch-forecasting's "
        "time_varying_known_reals), features added or dropped after the model was built from "
        "the dataset (from_dataset), or a checkpoint built for another feature set",
        "compare the last dimension of one batch's features (x['encoder_cont'].shape[-1], or "
        "x.shape[-1]) with the model's input_size",
        "list each feature once, and build the model from the same dataset the loader reads "
        "(from_dataset after the last change), or rebuild it for the new features",
        priority=84, explains=("worker_exception",)),
)
