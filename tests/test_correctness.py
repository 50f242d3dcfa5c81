"""The correctness checker against planted wrong outputs (numpy only, no GPU)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from kernelpro.profilers.runtime.correctness import (
    NO_REFERENCE, Check, check_outputs, check_written, compare, poison, poison_mask,
)

RTOL, ATOL = 1e-4, 1e-6


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((512, 64)).astype(np.float32)
    b = rng.standard_normal((512, 64)).astype(np.float32)
    ref = a.astype(np.float64) + b.astype(np.float64)
    return a, b, ref


def fresh(shape, dtype=np.float32):
    return poison(np.empty(shape, dtype))


def test_correct_output_passes(data):
    a, b, ref = data
    out = fresh(ref.shape)
    out[...] = a + b  # float32 arithmetic vs a float64 reference
    c = compare(out, ref, RTOL, ATOL)
    assert c.ok, c.reason
    assert c.reason.startswith("ok:") and c.unwritten == 0 and c.nonfinite == 0 and c.mismatched == 0
    assert 0 < c.rel_l2 < 1e-6 and c.max_abs < 1e-5


def test_all_zeros_fails(data):
    _, _, ref = data
    c = compare(np.zeros(ref.shape, np.float32), ref, RTOL, ATOL)
    assert not c.ok and c.rel_l2 == pytest.approx(1.0) and c.mismatched == ref.size
    assert c.reason.startswith("element [0, 0] = 0, expected")


def test_near_constant_output_fails(data):
    _, _, ref = data
    out = np.full(ref.shape, ref.mean(), np.float32)
    c = compare(out, ref, RTOL, ATOL)
    assert not c.ok and c.rel_l2 > 0.9


def test_copied_input_fails(data):
    a, _, ref = data
    c = compare(a.copy(), ref, RTOL, ATOL)
    assert not c.ok and c.rel_l2 > 0.5


def test_skipped_last_row_fails(data):
    a, b, ref = data
    out = fresh(ref.shape)
    out[:-1] = (a + b)[:-1]  # the last row is never written
    c = compare(out, ref, RTOL, ATOL)
    assert not c.ok and c.unwritten == 64 and c.mismatched == 64
    assert c.reason.startswith(f"element [511, 0] = NaN (unwritten), expected {ref[511, 0]:.6g}")
    assert "1 rows unwritten: still NaN poison" in c.reason


def test_skipped_last_row_zero_filled_fails(data):
    # a kernel whose buffer happened to be zeroed (no poison): still caught by the values
    a, b, ref = data
    out = (a + b).copy()
    out[-1] = 0
    c = compare(out, ref, RTOL, ATOL, poisoned=False)
    assert not c.ok and c.mismatched == 64 and "element [511, 0] = 0" in c.reason
    assert 0 < c.rel_l2 < 0.1  # the normwise error alone is small: the elementwise check catches it


def test_unwritten_tail_of_1d(data):
    a, b, ref = data
    out = fresh(ref.size)
    out[:-100] = (a + b).reshape(-1)[:-100]
    c = compare(out, ref.reshape(-1), RTOL, ATOL)
    assert not c.ok and c.unwritten == 100 and "the last 100 elements unwritten" in c.reason


def test_scattered_unwritten(data):
    a, b, ref = data
    out = (a + b).copy()
    poison(out[7:8, 3:5])
    c = compare(out, ref, RTOL, ATOL)
    assert not c.ok and c.unwritten == 2
    assert "2 of 32768 elements unwritten: still NaN poison, first at [7, 3]" in c.reason


def test_nan_and_inf_fail(data):
    a, b, ref = data
    for bad in (np.nan, np.inf, -np.inf):
        out = (a + b).copy()
        out[100, 10] = bad
        c = compare(out, ref, RTOL, ATOL)
        assert not c.ok and c.nonfinite == 1 and c.unwritten == 0
        assert "element [100, 10]" in c.reason and "1 NaN/Inf computed" in c.reason
        assert math.isinf(c.max_abs)


def test_constant_offset_fails(data):
    a, b, ref = data
    for offset in (1e-3, -2e-4):
        c = compare((a + b) + np.float32(offset), ref, RTOL, ATOL)
        assert not c.ok, offset
        assert c.max_abs == pytest.approx(abs(offset), rel=0.05)


def test_scale_error_fails(data):
    a, b, ref = data
    c = compare((a + b) * np.float32(1.001), ref, RTOL, ATOL)
    assert not c.ok and "rel_l2" in c.reason


def test_half_output_at_looser_tolerance(data):
    a, b, ref = data
    half = (a + b).astype(np.float16)
    assert compare(half, ref, 1e-2, 1e-3).ok
    assert not compare(half, ref, RTOL, ATOL).ok


def test_bfloat16_storage(data):
    a, b, ref = data
    f = (a + b).astype(np.float32)
    bf = (f.view(np.uint32) + 0x8000 >> 16).astype(np.uint16)  # round to nearest bf16
    assert compare(bf, ref, 2e-2, 1e-2, dtype="bfloat16").ok
    wrong = bf.copy()
    wrong[3, 3] ^= 0x4000  # flip an exponent bit
    assert not compare(wrong, ref, 2e-2, 1e-2, dtype="bfloat16").ok
    unwritten = poison(bf.copy())
    c = compare(unwritten, ref, 2e-2, 1e-2, dtype="bfloat16")
    assert not c.ok and c.unwritten == ref.size


def test_integers_exact():
    ref = np.arange(1000, dtype=np.int32) * 3
    assert compare(ref.copy(), ref, 0, 0).ok
    off = ref.copy()
    off[999] += 1
    c = compare(off, ref, 1e-2, 1e-2)  # tolerance does not apply to integers
    assert not c.ok and c.mismatched == 1 and "element [999] = 2998, expected 2997" in c.reason
    tail = fresh(1000, np.int32)
    tail[:990] = ref[:990]
    c = compare(tail, ref, 0, 0)
    assert not c.ok and c.unwritten == 10 and "0xFF" in c.reason


def test_integer_minus_one_expected_is_not_unwritten():
    ref = np.array([5, -1, 7], np.int32)
    out = fresh(3, np.int32)
    out[0], out[2] = 5, 7  # out[1] keeps the poison, which equals the expected -1
    c = compare(out, ref, 0, 0)
    assert c.ok and c.unwritten == 0


def test_weak_reference_warns():
    zeros = np.zeros(100)
    c = compare(np.zeros(100, np.float32), zeros, RTOL, ATOL)
    assert c.ok and "all zeros: the check is weak" in c.reason
    const = np.full(100, 3.0)
    c = compare(np.full(100, 3.0, np.float32), const, RTOL, ATOL)
    assert c.ok and "constant" in c.reason and "weak" in c.reason
    c = compare(np.ones(100, np.float32), zeros, RTOL, ATOL)
    assert not c.ok and math.isinf(c.rel_l2)


def test_matching_nan_in_reference_is_fine():
    ref = np.array([1.0, np.nan, np.inf])
    assert compare(np.array([1.0, np.nan, np.inf], np.float32), ref, RTOL, ATOL).ok
    assert not compare(np.array([1.0, 2.0, np.inf], np.float32), ref, RTOL, ATOL).ok
    assert not compare(np.array([1.0, np.nan, -np.inf], np.float32), ref, RTOL, ATOL).ok


def test_shape_checks():
    ref = np.arange(12.0).reshape(3, 4)
    assert compare(np.arange(12.0, dtype=np.float32), ref, RTOL, ATOL).ok  # same size: reshaped
    c = compare(np.arange(10.0), ref, RTOL, ATOL)
    assert not c.ok and "shape (10,)" in c.reason


def test_poison_mask_roundtrip():
    for dt in (np.float32, np.float64, np.float16, np.int32, np.uint8, np.int64):
        a = poison(np.zeros(5, dt))
        assert poison_mask(a).all()
        a[2] = 0
        assert poison_mask(a).tolist() == [True, True, False, True, True]
    assert np.isnan(poison(np.zeros(2, np.float32))).all()
    with pytest.raises(ValueError):
        poison(np.zeros((4, 4))[:, 1])


def test_check_outputs_many(data):
    a, b, ref = data
    good = (a + b).copy()
    bad = np.zeros_like(good)
    c = check_outputs({"x": good, "y": good}, {"x": ref, "y": ref}, RTOL, ATOL)
    assert c.ok and c.reason.startswith("x: ok")
    c = check_outputs({"x": good, "y": bad}, {"x": ref, "y": ref}, RTOL, ATOL)
    assert not c.ok and c.reason.startswith("y: element [0, 0] = 0") and c.rel_l2 == pytest.approx(1.0)
    c = check_outputs({"x": good}, {"x": ref, "z": ref}, RTOL, ATOL)
    assert not c.ok and "'z', which is not an output" in c.reason
    c = check_outputs({"x": good, "y": good}, {"x": ref}, RTOL, ATOL)
    assert not c.ok and "no 'y'" in c.reason
    assert isinstance(c.to_dict(), dict) and set(c.to_dict()) >= {"ok", "reason", "max_abs", "rel_l2"}


def test_check_outputs_inout_not_poisoned(data):
    a, b, ref = data
    out = (a + b).copy()
    c = check_outputs({"x": out}, {"x": ref}, RTOL, ATOL, poisoned={"x": False})
    assert c.ok


def test_no_reference_is_loud(data):
    a, b, _ = data
    good = (a + b).copy()
    c = check_outputs({"x": good}, None, RTOL, ATOL)
    assert c.ok and c.reason.startswith(f"WARNING: {NO_REFERENCE}")
    part = fresh(good.shape)
    part[:10] = good[:10]
    c = check_outputs({"x": part}, {}, RTOL, ATOL)
    assert not c.ok and NO_REFERENCE in c.reason and "rows unwritten" in c.reason and c.unwritten == 502 * 64
    nan = good.copy()
    nan[1, 1] = np.nan
    c = check_written(nan)
    assert not c.ok and c.nonfinite == 1 and "first at [1, 1]" in c.reason
    assert isinstance(c, Check)


def test_torch_like_inputs(data):
    a, b, ref = data

    class FakeTensor:  # .detach().cpu().numpy() like torch
        def __init__(self, x):
            self.x = x

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return self.x

    assert compare(FakeTensor((a + b).copy()), FakeTensor(ref), RTOL, ATOL).ok
