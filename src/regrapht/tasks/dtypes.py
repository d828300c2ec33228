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
    # Compound element types (complex numbers, declared structs): (field name, component dtype) per
    # field, compared field by field; empty for plain numbers.
    fields: tuple[tuple[str, DType], ...] = ()
    struct: bool = False  # declared in task.toml's [[structs]] (its C definition comes with the task)

    @property
    def is_compound(self) -> bool:
        return bool(self.fields)

    @property
    def is_complex(self) -> bool:
        return self.numpy.kind == "c"


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


def _complex(name: str, part: str, c_names: tuple[str, ...]) -> DType:
    component = DTYPES[part]
    return DType(
        name,
        np.dtype(name),
        c_names,
        False,
        component.default_rtol,
        component.default_atol,
        fields=(("re", component), ("im", component)),
    )


# C++'s bool, one byte (0 or 1): for masks and flags in arrays only (no perturbation, no scalars).
DTYPES["bool"] = DType("bool", np.dtype("bool"), ("bool",), False, 0.0, 0.0)

# CUDA's complex types are float2/double2 with (x, y) = (real, imaginary): numpy's layout exactly.
DTYPES["complex64"] = _complex("complex64", "float32", ("cuFloatComplex", "cuComplex", "float2"))
DTYPES["complex128"] = _complex("complex128", "float64", ("cuDoubleComplex", "double2"))


def dtype(name: str) -> DType:
    try:
        return DTYPES[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(DTYPES)})") from None
