"""The element types a task may use, with their C spellings and default tolerances."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    numpy: np.dtype
    c_names: tuple[str, ...]
    is_float: bool
    default_rtol: float
    default_atol: float


def _d(name: str, c_names: tuple[str, ...], rtol: float = 0.0, atol: float = 0.0) -> DType:
    np_dtype = np.dtype(name)
    return DType(name, np_dtype, c_names, np_dtype.kind == "f", rtol, atol)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        _d("int8", ("int8_t", "signed char", "char")),
        _d("uint8", ("uint8_t", "unsigned char")),
        _d("int16", ("int16_t", "short")),
        _d("uint16", ("uint16_t", "unsigned short")),
        _d("int32", ("int", "int32_t", "signed int")),
        _d("uint32", ("unsigned int", "uint32_t", "unsigned")),
        _d("int64", ("long long", "int64_t", "long", "long int", "long long int", "ptrdiff_t")),
        _d("uint64", ("unsigned long long", "uint64_t", "size_t", "unsigned long")),
        _d("float32", ("float",), rtol=1e-5, atol=1e-6),
        _d("float64", ("double",), rtol=1e-10, atol=1e-12),
    )
}


def dtype(name: str) -> DType:
    try:
        return DTYPES[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(DTYPES)})") from None
