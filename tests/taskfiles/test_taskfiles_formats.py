"""The task file formats' declarations: each (family, format) once, one suffix a format."""

from __future__ import annotations

from biocompact.taskfiles.formats import FORMATS, SUFFIXES, TASK_FORMATS


def test_each_family_reads_a_format_once_and_a_format_has_one_suffix():
    pairs = [(family, fmt.name) for fmt in TASK_FORMATS for family in fmt.families]
    assert len(pairs) == len(FORMATS)
    assert {(fmt.name, fmt.suffix) for fmt in TASK_FORMATS} == set(SUFFIXES.items())
