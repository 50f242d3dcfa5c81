"""ptxas, nvcc-diagnostic and nvdisasm parsers on recorded outputs, old formats included."""
from pathlib import Path

from kernelpro.profilers.compile import demangle_name
from kernelpro.profilers.nvcc_diag import parse_diagnostics
from kernelpro.profilers.ptxas import parse_ptxas
from kernelpro.profilers.sass import parse_sass

FIX = Path(__file__).parent / "fixtures"


def test_ptxas_cuda13_with_barriers_and_device_function_frame():
    r = parse_ptxas((FIX / "ptxas/cuda13_sm90.txt").read_text())
    assert set(r) == {"_Z2trPfPKfi", "_Z5spillPfPKfii"}  # the device helper is not a kernel
    tr = r["_Z2trPfPKfi"]
    assert (tr.registers, tr.barriers, tr.shared_bytes, tr.constant_bytes, tr.arch) == (12, 1, 4096, 360, "sm_90")
    sp = r["_Z5spillPfPKfii"]
    assert (sp.stack_bytes, sp.spill_stores, sp.spill_loads, sp.registers, sp.barriers) == (264, 8, 12, 32, 0)


def test_ptxas_cuda11_no_barrier_count():
    r = parse_ptxas((FIX / "ptxas/cuda11_sm70.txt").read_text())
    red = r["_Z6reduceILj128EEvPdS0_jj"]
    assert (red.registers, red.shared_bytes, red.constant_bytes, red.barriers) == (16, 1024, 376, None)
    assert r["_Z8RZKernelILj128EEvP7double2iidd"].shared_bytes == 0


def test_ptxas_old_cmem_banks_textures_and_spills():
    r = parse_ptxas((FIX / "ptxas/cuda9_sm61_cmem2.txt").read_text())
    core = r["_Z4coreILi1EEvPjjj"]
    assert (core.stack_bytes, core.spill_stores, core.spill_loads) == (176, 428, 432)
    assert (core.registers, core.shared_bytes, core.constant_bytes) == (64, 32768, 368)
    assert r["_Z15knn_assign_gmemPKfPj"].constant_bytes == 400  # cmem[0], not cmem[2]


def test_ptxas_static_plus_system_smem():
    r = parse_ptxas((FIX / "ptxas/cuda5_sm20_plus_smem.txt").read_text())
    assert list(r) == ["_Z5kSignPfS_j"]
    assert r["_Z5kSignPfS_j"].shared_bytes == 48 and r["_Z5kSignPfS_j"].stack_bytes == 0


def test_demangle():
    assert demangle_name("_Z3addPfPKfi") == "add"
    assert demangle_name("_Z2tkILi4EEvPf") == "tk"
    assert demangle_name("_ZN2ns6kernelEPf") == "kernel"
    assert demangle_name("_ZN5outer5inner3fooILi2EEEvPf") == "foo"
    assert demangle_name("my_extern_c_kernel") == "my_extern_c_kernel"


EDG = '''k.cu(3): error: identifier "y" is undefined
  __attribute__((global)) void bad(float*x){ x[0] = y; }
                                                    ^

k.cu(7): warning #177-D: variable "unused" was declared but never referenced
      int unused;
          ^

Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"

2 errors detected in the compilation of "k.cu".
h.cuh:2:10: fatal error: missing.h: No such file or directory
ptxas fatal   : Unresolved extern function '_Z3foov'
nvcc fatal   : Unsupported gpu architecture 'sm_99'
'''


def test_nvcc_diagnostics_with_real_columns():
    src = {3: "__global__ void bad(float*x){ x[0] = y; }", 7: "    int unused;"}
    ds = parse_diagnostics(EDG, lambda f, n: src.get(n))
    assert [(d.severity, d.file, d.line) for d in ds[:3]] == [("error", "k.cu", 3), ("warning", "k.cu", 7), ("error", "h.cuh", 2)]
    # the caret sits under `y` in the echoed line where __global__ was expanded; the column is the real one
    assert ds[0].column == src[3].index("y") + 1
    assert ds[1].column == src[7].index("unused") + 1 and ds[1].code == "177-D"
    assert ds[2].column == 10 and "missing.h" in ds[2].message
    assert [(d.tool, d.severity) for d in ds[3:]] == [("ptxas", "error"), ("nvcc", "error")]


SASS = '''
	.section	.text._Z1kPfPKf,"ax",@progbits
	//## File "/w/k.cu", line 4
        /*0010*/                   S2R R9, SR_TID.X ;
	//## File "/w/k.cu", line 2 inlined at "/w/k.cu", line 5
	//## File "/w/k.cu", line 5
        /*0050*/               @P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;
	//## File "/usr/include/cmath", line 464 inlined at "/w/h.cuh", line 1
	//## File "/w/h.cuh", line 1 inlined at "/w/k.cu", line 6
	//## File "/w/k.cu", line 6
        /*0080*/                   MUFU.RSQ R5, R0 ;
	.section	.text._Z2k2v,"ax",@progbits
        /*0000*/                   EXIT ;
'''


def test_sass_line_map_with_inlining():
    s = parse_sass(SASS)
    a, b, c = s["_Z1kPfPKf"]
    assert (a.opcode, a.locations) == ("S2R", [("/w/k.cu", 4)])
    assert (b.base, b.mods, b.predicate) == ("LDG", ["E", "128", "CONSTANT"], "@P0")
    assert b.locations == [("/w/k.cu", 2), ("/w/k.cu", 5)] and b.line_in("/w/k.cu") == 2
    assert c.locations == [("/usr/include/cmath", 464), ("/w/h.cuh", 1), ("/w/k.cu", 6)]
    assert c.line_in("/w/k.cu") == 6 and c.line_in("/w/h.cuh") == 1
    assert [i.opcode for i in s["_Z2k2v"]] == ["EXIT"]


def test_diagnostic_text_without_a_line_names_only_the_file():
    from kernelpro.profilers.nvcc_diag import Diagnostic

    d = Diagnostic("error", "compilation timed out after 1 s and was stopped", "/x/k.cu", None)
    assert d.text() == "/x/k.cu: error: compilation timed out after 1 s and was stopped"
    assert Diagnostic("error", "m", "/x/k.cu", 3, 7).text() == "/x/k.cu:3:7: error: m"
    assert Diagnostic("error", "m", tool="ptxas").text() == "ptxas: error: m"
