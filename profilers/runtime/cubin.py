"""What a compiled kernel really takes and keeps, read from its cubin (an ELF file).

- `kernel_params(cubin, mangled)`: the parameter list the compiler laid out, one `KParam`
  (ordinal, byte offset, byte size) per parameter, from the EIATTR_KPARAM_INFO records of
  the `.nv.info.<kernel>` section (what `cuobjdump -elf` prints). Unnamed parameters are
  there too, so a launch is checked against this list, not against the parsed source.
- `device_globals(cubin)`: the module's writable device variables (`__device__` globals and
  `static` locals of device functions: symbols in `.nv.global` and `.nv.global.init`) with
  their initial bytes, so the runner can put them back before every launch.

Pure Python (struct): no GPU, no subprocess; the worker and the parent both use it.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

EIATTR_KPARAM_INFO = 0x17
EIFMT_SVAL = 0x04  # a record with a 16-bit size and that many bytes; every other format is 4 bytes
_SHT_SYMTAB, _SHT_NOBITS = 2, 8
_STT_OBJECT = 1
WRITABLE_SECTIONS = (".nv.global", ".nv.global.init")


class CubinError(Exception):
    """The file is not a 64-bit little-endian ELF cubin, or a record is cut short."""


@dataclass(frozen=True)
class KParam:
    ordinal: int
    offset: int  # bytes into the parameter buffer
    size: int  # bytes


@dataclass(frozen=True)
class DeviceGlobal:
    name: str  # the symbol (mangled for static locals: _ZZ1kPfE5calls)
    section: str  # .nv.global (zero-initialised) or .nv.global.init
    offset: int  # within its section
    size: int
    init: bytes  # initial contents (zeros for .nv.global)


@dataclass
class _Section:
    name: str
    type: int
    offset: int
    size: int
    link: int
    entsize: int


class Cubin:
    def __init__(self, data: bytes, where: str = "cubin"):
        self.data, self.where = data, where
        if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 or data[5] != 1:
            raise CubinError(f"{where}: not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        raw = []
        for i in range(shnum):
            try:
                name, typ, _flags, _addr, off, size, link, _info, _align, entsize = struct.unpack_from(
                    "<IIQQQQIIQQ", data, shoff + i * shentsize)
            except struct.error:
                raise CubinError(f"{where}: section header {i} is cut short") from None
            raw.append((name, typ, off, size, link, entsize))
        strtab = raw[shstrndx][2] if shstrndx < len(raw) else 0
        self.sections = [_Section(self._str(strtab, n), t, o, s, l, e) for n, t, o, s, l, e in raw]

    @classmethod
    def read(cls, path: str | Path) -> "Cubin":
        return cls(Path(path).read_bytes(), str(path))

    def _str(self, table: int, index: int) -> str:
        end = self.data.find(b"\0", table + index)
        return self.data[table + index:end].decode("utf-8", "replace")

    def section(self, name: str) -> _Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def bytes_of(self, s: _Section) -> bytes:
        return bytes(s.size) if s.type == _SHT_NOBITS else self.data[s.offset:s.offset + s.size]

    def symbols(self):
        """(name, value, size, type, section index) of every symbol."""
        for s in self.sections:
            if s.type != _SHT_SYMTAB:
                continue
            strtab = self.sections[s.link].offset
            for off in range(s.offset, s.offset + s.size, s.entsize or 24):
                name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", self.data, off)
                yield self._str(strtab, name), value, size, info & 0xF, shndx

    def kernel_params(self, mangled: str) -> list[KParam] | None:
        """The kernel's parameters by ordinal; None when the cubin has no .nv.info for it."""
        s = self.section(f".nv.info.{mangled}")
        if s is None:
            return None
        data, p, out = self.bytes_of(s), 0, {}
        while p + 4 <= len(data):
            fmt, attr = data[p], data[p + 1]
            if fmt == EIFMT_SVAL:
                size, = struct.unpack_from("<H", data, p + 2)
                value = data[p + 4:p + 4 + size]
                p += 4 + size
                if attr == EIATTR_KPARAM_INFO:
                    if len(value) < 12:
                        raise CubinError(f"{self.where}: a parameter record of {mangled} is cut short")
                    _index, ordinal, offset, flags = struct.unpack_from("<IHHI", value)
                    out[ordinal] = KParam(ordinal, offset, flags >> 18)
            else:
                p += 4
        return [out[k] for k in sorted(out)]

    def device_globals(self) -> list[DeviceGlobal]:
        out = []
        for name, value, size, typ, shndx in self.symbols():
            if typ != _STT_OBJECT or not size or shndx >= len(self.sections):
                continue
            sec = self.sections[shndx]
            if sec.name not in WRITABLE_SECTIONS:
                continue
            init = self.bytes_of(sec)[value:value + size]
            out.append(DeviceGlobal(name, sec.name, value, size, init))
        return out


def kernel_params(cubin: str | Path, mangled: str) -> list[KParam] | None:
    return Cubin.read(cubin).kernel_params(mangled)


def device_globals(cubin: str | Path) -> list[DeviceGlobal]:
    return Cubin.read(cubin).device_globals()
