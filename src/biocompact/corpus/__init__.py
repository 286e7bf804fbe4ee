"""Corpus stage: PubMed download, parsing, update resolution, sentence splitting, statistics.

This subpackage never imports torch or transformers (see ``sentences`` for spaCy).
"""
