"""TensorBoard event files of scalar curves, written without TensorBoard installed.

An event file is a sequence of TFRecords (8-byte little-endian length, masked CRC-32C of
the length, the data, masked CRC-32C of the data), each holding one ``Event`` protocol
buffer: the first ``file_version: "brain.Event:2"``, then one per logged step with
``wall_time``, ``step`` and a ``Summary`` of ``(tag, simple_value)`` pairs. ``tensorboard
--logdir results/`` reads every ``*tfevents*`` file below ``results/``. A job that resumes
starts a new file from an earlier step; TensorBoard then drops the older file's later
points (its ``purge_orphaned_data``), so the curves show each step once.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import cast

FILE_VERSION = b"brain.Event:2"
_CRC32C_TABLE = []
for _byte in range(256):
    _crc = _byte
    for _ in range(8):
        _crc = (_crc >> 1) ^ 0x82F63B78 if _crc & 1 else _crc >> 1
    _CRC32C_TABLE.append(_crc)


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), as TFRecord framing uses."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def encode_event(
    wall_time: float,
    step: int,
    scalars: Mapping[str, float] | None = None,
    file_version: bytes = b"",
) -> bytes:
    """One ``Event`` message: wall_time (field 1, double), step (2, int64), file_version
    (3, string) or summary (5) of values (1) with tag (1, string), simple_value (2, float)."""
    event = b"\x09" + struct.pack("<d", wall_time) + b"\x10" + _varint(step)
    if file_version:
        event += _field(3, file_version)
    if scalars:
        values = b"".join(
            _field(1, _field(1, tag.encode()) + b"\x15" + struct.pack("<f", value))
            for tag, value in scalars.items()
        )
        event += _field(5, values)
    return event


def tfrecord(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return (
        length
        + struct.pack("<I", masked_crc32c(length))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


class ScalarWriter:
    """Append scalar events to a new event file in ``folder`` (flushed at every step, so
    TensorBoard shows a running job's curves)."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        now = time.time()
        name = f"events.out.tfevents.{now:.6f}.{socket.gethostname()}.{os.getpid()}"
        self.path = self.folder / name
        self._write(encode_event(now, 0, file_version=FILE_VERSION))

    def add(self, step: int, scalars: Mapping[str, float]) -> None:
        """One event at ``step`` holding every (tag, value) of ``scalars``."""
        self._write(encode_event(time.time(), step, {k: float(v) for k, v in scalars.items()}))

    def _write(self, event: bytes) -> None:
        with open(self.path, "ab") as handle:
            handle.write(tfrecord(event))


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, position


def _fields(data: bytes) -> Iterator[tuple[int, int, bytes | int]]:
    """(field number, wire type, value) of a message: varints as int, the rest as bytes."""
    position = 0
    while position < len(data):
        key, position = _read_varint(data, position)
        number, wire = key >> 3, key & 7
        value: bytes | int
        if wire == 0:
            value, position = _read_varint(data, position)
        elif wire == 1:
            value, position = data[position : position + 8], position + 8
        elif wire == 5:
            value, position = data[position : position + 4], position + 4
        elif wire == 2:
            size, position = _read_varint(data, position)
            value, position = data[position : position + size], position + size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def read_scalars(path: str | os.PathLike) -> list[tuple[int, str, float]]:
    """Every (step, tag, value) of an event file, checking each record's CRCs."""
    data = Path(path).read_bytes()
    scalars: list[tuple[int, str, float]] = []
    position = 0
    while position < len(data):
        length_bytes = data[position : position + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        (length_crc,) = struct.unpack("<I", data[position + 8 : position + 12])
        event = data[position + 12 : position + 12 + length]
        (data_crc,) = struct.unpack("<I", data[position + 12 + length : position + 16 + length])
        if length_crc != masked_crc32c(length_bytes) or data_crc != masked_crc32c(event):
            raise ValueError(f"{path}: corrupt record at byte {position}")
        position += 16 + length
        fields = list(_fields(event))
        # the wire types the format fixes: step a varint, summary, value, tag and number bytes
        step = cast(int, next((value for number, _, value in fields if number == 2), 0))
        for number, _, summary in fields:
            if number != 5:
                continue
            for _, _, value in _fields(cast(bytes, summary)):
                entry = {n: cast(bytes, v) for n, _, v in _fields(cast(bytes, value))}
                scalars.append((step, entry[1].decode(), struct.unpack("<f", entry[2])[0]))
    return scalars
