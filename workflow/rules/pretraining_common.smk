# Input functions of the pretraining stage (pretraining.smk); included by common.smk.


def pretraining_entry(wildcards):
    """The config entry of pretrained model ``wildcards.model`` (with its resources)."""
    return config["pretraining"][wildcards.model]


def pretraining_settings(wildcards):
    """Model ``wildcards.model``'s pretraining settings as its job reads them."""
    return without_resources(pretraining_entry(wildcards))


def model_tokenizer(wildcards):
    """The tokenizer of the vocabulary that model ``wildcards.model`` trains on."""
    vocabulary = model_vocabulary(config, wildcards.model)
    return expand(rules.train_vocabulary.output.tokenizer, vocab=vocabulary)[0]
