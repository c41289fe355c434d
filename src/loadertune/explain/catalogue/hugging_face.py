"""The Hugging Face stack between a user's data and the model: Hub datasets that cannot be
loaded as named, columns that are not there, tokenizers that cannot pad, processors
whose text and media disagree, and fine-tuning collators that cannot find their template."""

from __future__ import annotations

from loadertune.explain.signature import Signature, near, text

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "tokenizer_no_pad_token", "the tokenizer has no padding token",
        (text(r"(?i)tokenizer\.pad_token\s*=\s*tokenizer\.eos_token", 1),
         text(near(r"\bpad(?:ding)?[_ ]token\b", r"\b(?:no|not|none|missing|without)\b", 60),
              1.5, key=True)),
        "padding a batch of sequences of different lengths needs the tokenizer's pad token, "
        "and many decoder-only models (GPT-2, LLaMA, Mistral) ship a tokenizer without one; "
        "the collator (DataCollatorWithPadding, DataCollatorForLanguageModeling) or "
        "tokenizer(..., padding=True) then refuses the first batch",
        "python -c \"from transformers import AutoTokenizer; "
        "print(AutoTokenizer.from_pretrained('<model>').pad_token)\" prints None",
        "set one before building the collator: tokenizer.pad_token = tokenizer.eos_token "
        "(with labels masked by attention_mask), or add a [PAD] token and resize the model's "
        "embeddings (model.resize_token_embeddings(len(tokenizer)))",
        priority=86, explains=("worker_exception", "collate_size_mismatch")),
    Signature(
        "column_not_found", "the code names a dataset column this dataset does not have",
        (text(r"(?i)Column (?:name )?\S+ not in the dataset", 2, key=True),
         # pandas selecting columns a DataFrame lacks; a trainer's column mapping
         text(r"None of \[Index\(\[[^\n]{0,300}?\],\s*dtype='\w+'\)\] are in the \[columns\]",
              3, key=True),
         text(near(r"\bexpected the columns\b", r"\bdataset had the columns\b", 300), 3,
              key=True),
         text(r"(?i)\bremove_columns\b|\binput_columns\b|\bcolumn_names\b", 0.5)),
        "a column named in the code (remove_columns=, input_columns=, dataset['text'], a "
        "text field of a trainer, a key the collator reads) is not in this dataset or split: "
        "another dataset's schema, a column renamed or removed by an earlier map, or a "
        "split that lacks it (test sets without labels)",
        "python -c \"from datasets import load_dataset; print(load_dataset(<args>)"
        ".column_names)\" and compare with the name in the error",
        "use the names the dataset has (dataset.rename_column to match the code), remove "
        "only columns that exist (remove_columns=dataset.column_names after map), and point "
        "text fields at the real column",
        priority=86, explains=("worker_exception",)),
    Signature(
        "dataset_script_unsupported", "the Hub dataset is a loading script the installed "
        "datasets no longer runs",
        (text(r"(?i)trust_remote_code", 1),
         text(near(r"\bdataset\b", r"\bloading script|\bscripts? (?:are|is) no longer",
                   100), 1.5, key=True)),
        "the dataset is defined by a Python loading script (name.py in its repository); "
        "datasets 4.0 removed support for running such scripts, and earlier releases run "
        "them only with trust_remote_code=True",
        "python -c \"import datasets; print(datasets.__version__)\" and look for a .py "
        "file in the dataset's Hub repository",
        "load a Parquet revision of the dataset (many Hub datasets have "
        "revision='refs/convert/parquet'), or a version of it without a script, or pin "
        "datasets<4.0 and pass trust_remote_code=True",
        priority=86),
    Signature(
        "hub_dataset_inaccessible", "the Hub dataset cannot be found or read with these "
        "credentials",
        (text(r"(?i)\bis a gated dataset\b|\bgated\b.{0,80}\baccess\b", 2, key=True),
         text(r"(?i)huggingface-cli login|hf auth login|\bHF_TOKEN\b", 0.5)),
        "the dataset id given to load_dataset is wrong (a typo, a renamed or moved "
        "repository, a user's namespace left out), private, or gated (it needs the terms "
        "accepted on its page), and the process has no token allowed to read it; on a "
        "cluster the token of the login node is often missing on the compute nodes",
        "huggingface-cli whoami, then open https://huggingface.co/datasets/<id> with that "
        "account",
        "fix the id, accept the dataset's terms on its page, and log in where the job runs "
        "(huggingface-cli login, or HF_TOKEN in the job's environment)",
        priority=86),
    Signature(
        "media_tokens_mismatch", "the text's image (or audio) tokens do not match the media "
        "given",
        (text(r"(?i)Image features and image tokens do not match", 4, key=True),
         text(near(r"\b(?:image|video|audio) tokens?\b", r"\bdo(?:es)? not match|\bmismatch\b",
                   80), 1.5, key=True)),
        "a multimodal processor needs one placeholder token (<image>) in the text per image "
        "(or video, audio) given: a sample with more or fewer placeholders than media, a "
        "chat template that adds its own, truncation (max_length) that cuts the "
        "placeholders out of a long prompt, or an images field holding one path as a string "
        "where a list is expected (its length counts the characters)",
        "count the placeholder token in one failing sample's text and compare with its "
        "number of images, before and after truncation",
        "give each sample as many placeholders as media (fix the data or the template), "
        "and raise max_length or stop truncating prompts that carry media",
        priority=86, explains=("worker_exception",)),
    Signature(
        "response_template_not_found", "the completion-only collator cannot find the response "
        "template in the samples",
        (text(r"Could not find (?:response|instruction) key", 4, key=True),
         text(r"\bDataCollatorForCompletionOnlyLM\b|\bresponse_template\b", 1)),
        "DataCollatorForCompletionOnlyLM (TRL) masks every token up to the response "
        "template and looks for the template's token ids in each tokenized sample; the "
        "template tokenizes differently inside the text (a leading space or newline merges "
        "with it), the samples use another template, or truncation cut it off: those samples "
        "get no label at all, so the loss is 0 or NaN",
        "tokenizer.encode(response_template, add_special_tokens=False) against the ids of "
        "one formatted sample: the sequence is not in it",
        "pass the template as token ids taken from a formatted sample "
        "(tokenizer.encode('\\n' + template, add_special_tokens=False)[2:]), format every "
        "sample with the same template, raise max_length; newer TRL: completion_only_loss "
        "with prompt-completion data",
        priority=86, explains=("worker_exception",)),
    Signature(
        "chat_data_not_templated", "chat messages where the trainer expects text",
        (text(near(r"\b(?:prompt|chosen|rejected|completion) should be an? str",
                   r"<class 'list'>|\blist\b", 60), 2, key=True),),
        "a preference or completion dataset in the conversational format (each column a list "
        "of {'role', 'content'} messages) was given to a trainer release that tokenizes "
        "plain strings only (TRL's DPO and KTO trainers before they applied chat templates "
        "themselves)",
        "print(type(dataset[0]['chosen'])): a list of messages, not a str",
        "apply the chat template first (dataset.map with tokenizer.apply_chat_template(..., "
        "tokenize=False) on prompt, chosen and rejected), or update TRL to a release that "
        "accepts conversational data",
        priority=86, explains=("worker_exception",)),
)
