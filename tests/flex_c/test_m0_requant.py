"""The Cortex-M0+ requantization (flex_c/src/opt/cortex_m0plus/m0_requant.h), compiled for
thumbv6m and run in the unicorn emulator, against TFLM's MultiplyByQuantizedMultiplier plus
output offset and clamp (flex__s8_requant, the reference): for every shift the checks
accept (-31..31), multipliers of TFLM's converter and others, and a dense set of
accumulators per multiplier and shift (the edges 0, +-1, +-2^k +- 1, the int32 extremes,
both sides of the fast range and of the wrap of a left shift, and both sides of every
rounding tie of a span of outputs), through the three per-output forms: the assembly loop
over a block of records, the C loop the other blocks take, and the depthwise line loop.
The assembly loop must also keep every accumulator of TFLM's multipliers in its range off
the general routine."""

import numpy as np
import pytest
from unicorn import UC_HOOK_BLOCK

from burn.graph.fixedpoint import (
    multiply_by_quantized_multiplier,
    saturating_rounding_doubling_high_mul,
)
from burn.host.flex.binding import Struct
from burn.host.flex.elf import STT_FUNC, Elf
from burn.host.flex.emulator import EmulatedLib

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
SHIFTS = range(-31, 32)
# TFLM's converter: 0 or [2^30, 2^31); the pieces' edges (m0 = 0x7FF, m1 = 0x3FF)
TFLM_MULTS = [0, 1 << 30, (1 << 30) + 1, INT32_MAX, (1 << 30) | 0x7FF,
              (1 << 30) | (0x3FF << 11), 1518500250, 1234567890, 2004318071]
OTHER_MULTS = [1, 12345, 1 << 29, (1 << 30) - 1, -1, -(1 << 30), -(1 << 30) - 1, INT32_MIN]
QUANTS = [(-128, -128, 127), (127, -128, 127), (0, -128, 127), (-7, -100, 90)]
RECORD_WORDS = 7   # flex__m0_rq
LINE_WORDS = 9     # flex__m0_line_rq
FAST_RANGE = 20
NONE = 0xFF        # a record without a fast range


def wrap32(v):
    return (int(v) + (1 << 31)) % (1 << 32) - (1 << 31)


def mbqm(acc, mult, shift):
    """MultiplyByQuantizedMultiplier with C's int32 wrap of acc * 2^shift."""
    if shift > 0:
        return saturating_rounding_doubling_high_mul(wrap32(acc << shift), mult)
    return multiply_by_quantized_multiplier(acc, mult, shift)


def requant(t, zp, lo, hi):
    """flex__s8_requant after MBQM: the output offset (wrapping) and the clamp."""
    return np.clip((np.asarray(t, np.int64) + zp + (1 << 31)) % (1 << 32) - (1 << 31), lo, hi)


def fast_range(mult, shift):
    """The exponent e of the fast range [-2^e, 2^e) the records are expected to have:
    left shifts of 10 or more keep |acc 2^shift| <= 2^30 (neither it nor MBQM plus the
    output offset wraps)."""
    if shift < 0:
        return FAST_RANGE if mult >= 0 else NONE
    if shift <= 9 or mult == 0:
        return FAST_RANGE
    if abs(mult) < (1 << 30) or shift > 30:
        return NONE
    return min(FAST_RANGE, 30 - shift)


def accumulators(mult, shift, rng):
    """Accumulators around every edge of (mult, shift): int32 edges, the fast range, the
    left shift's wrap, and both sides of the rounding ties of outputs around 0 and the
    clamp (the first rounding's ties at (j + 1/2) 2^31 of the product, the second's at
    (k + 1/2) 2^(31+s))."""
    acc = {0, INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1}
    for k in range(32):
        for d in (-1, 0, 1):
            acc.update((d + (1 << k), d - (1 << k)))
    for edge in {FAST_RANGE} | ({max(30 - shift, 0), 31 - shift} if shift > 0 else set()):
        for d in range(-2, 3):
            acc.update((d + (1 << edge), d - (1 << edge)))
    if mult != 0:
        s = -shift if shift < 0 else 0
        unit = 1 << (31 + s) if shift <= 0 else 1 << 31
        lshift = shift if shift > 0 else 0
        ks = set(range(-3, 4)) | set(rng.integers(-300, 300, 14).tolist())
        for k in ks:
            for tie in (unit * (2 * k + 1) // 2, (1 << 30) * (2 * k + 1)):
                centre = tie // mult >> lshift
                for d in range(-2, 3):
                    acc.add(centre + d)
    acc.update(rng.integers(-(1 << 21), 1 << 21, 40).tolist())
    acc.update(rng.integers(INT32_MIN, INT32_MAX, 8, endpoint=True).tolist())
    return sorted(a for a in acc if INT32_MIN <= a <= INT32_MAX)


@pytest.fixture(scope="module")
def m0():
    return EmulatedLib("cortex-m0plus")


@pytest.fixture(scope="module")
def general_code(m0):
    """Address ranges of the general requantization's functions in the image."""
    with open(m0.build.image, "rb") as f:
        elf = Elf(f.read())
    return [(s.value & ~1, (s.value & ~1) + s.size) for s in elf.symbols
            if s.kind == STT_FUNC and s.name in ("flex__m0_requant_general",
                                                 "flex__s8_requant")]


def _records(m0, mults, shifts, bases):
    """flex__m0_rq_block records (one per element) as an int32 array [n, 7]."""
    n = len(mults)
    rq = np.zeros(n * RECORD_WORDS, np.int32)
    q = Struct("flex_s8_quant", (0, 0, -128, 127))
    m0.call("flex__m0_rq_block", [rq, n, None, 0, None, np.asarray(bases, np.int32),
                                  np.asarray(mults, np.int32), np.asarray(shifts, np.int32),
                                  1, q])
    return rq.reshape(n, RECORD_WORDS)


def _run(m0, name, args, general_code):
    """Call `name`; returns how many blocks of the general requantization ran."""
    hits = [0]

    def on_block(_uc, _addr, _size, _data):
        hits[0] += 1

    hooks = [m0.uc.hook_add(UC_HOOK_BLOCK, on_block, begin=lo, end=hi - 1)
             for lo, hi in general_code]
    try:
        m0.call(name, args)
    finally:
        for h in hooks:
            m0.uc.hook_del(h)
    return hits[0]


def test_python_model_is_the_c_reference(m0):
    """The Python MBQM (wrapping left shifts) agrees with flex__s8_requant in the emulator."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        mult = int(rng.choice(TFLM_MULTS + OTHER_MULTS))
        shift = int(rng.integers(-31, 32))
        accs = accumulators(mult, shift, rng)
        acc = int(rng.choice(accs))
        zp, lo, hi = QUANTS[int(rng.integers(0, len(QUANTS)))]
        got = m0.call("flex__s8_requant", [acc, mult, shift,
                                           Struct("flex_s8_quant", (0, zp, lo, hi))])
        assert got & 0xFF == int(requant(mbqm(acc, mult, shift), zp, lo, hi)) & 0xFF, (
            acc, mult, shift)


def test_every_tflm_multiplier_and_shift_has_the_fast_form(m0):
    """Every right shift, and left shifts up to 10, take the assembly's full range; larger
    left shifts the accumulators that do not wrap (down to [-1, 1) at 30)."""
    combos = [(m, s) for m in TFLM_MULTS + OTHER_MULTS for s in SHIFTS]
    rq = _records(m0, [m for m, _s in combos], [s for _m, s in combos], [0] * len(combos))
    ranges = (rq[:, 6] >> 8) & 0xFF
    assert ranges.tolist() == [fast_range(m, s) for m, s in combos]
    tflm = [r for (m, s), r in zip(combos, ranges) if m in TFLM_MULTS and s <= 30]
    assert NONE not in tflm
    assert all(r == FAST_RANGE for (m, s), r in zip(combos, ranges)
               if m in TFLM_MULTS and s <= 10)


@pytest.mark.parametrize("shift", SHIFTS)
def test_rows_and_c_loop_equal_reference(m0, general_code, shift):
    rng = np.random.default_rng(shift + 100)
    mults, accs, bases = [], [], []
    for mult in TFLM_MULTS + OTHER_MULTS:
        a = accumulators(mult, shift, rng)
        mults += [mult] * len(a)
        accs += a
        # a fifth of the accumulators arrive as acc - base with a random base (wrapping)
        bases += [int(b) if rng.random() < 0.2 else 0
                  for b in rng.integers(INT32_MIN, INT32_MAX, len(a), endpoint=True)]
    n = len(accs)
    t = np.array([mbqm(a, m, shift) for a, m in zip(accs, mults)], np.int64)
    args = np.array([wrap32(a - b) for a, b in zip(accs, bases)], np.int32)
    rq = _records(m0, mults, [shift] * n, bases)
    ranges = (rq[:, 6] >> 8) & 0xFF
    asm = np.flatnonzero(ranges == FAST_RANGE)
    acc = np.asarray(accs, np.int64)
    for zp, lo, hi in QUANTS:
        q = Struct("flex_s8_quant", (0, zp, lo, hi))
        want = requant(t, zp, lo, hi)
        out = np.zeros(n, np.int8)
        m0.call("flex__m0_requant_each", [args, rq, n, out, q])
        assert np.array_equal(out, want), np.flatnonzero(out != want)[:8]
        out = np.zeros(asm.size, np.int8)
        general = _run(m0, "flex__m0_requant_rows",
                       [args[asm], np.ascontiguousarray(rq[asm]), asm.size, out, q],
                       general_code)
        assert np.array_equal(out, want[asm]), asm[np.flatnonzero(out != want[asm])[:8]]
        # the general routine ran only for accumulators beyond the fast range
        beyond = (acc[asm] < -(1 << FAST_RANGE)) | (acc[asm] >= 1 << FAST_RANGE)
        assert (general > 0) == bool(beyond.any())
        tflm = np.isin(np.asarray(mults)[asm], TFLM_MULTS) & ~beyond
        out = np.zeros(int(tflm.sum()), np.int8)
        assert _run(m0, "flex__m0_requant_rows",
                    [args[asm][tflm], np.ascontiguousarray(rq[asm][tflm]), out.size, out, q],
                    general_code) == 0
        assert np.array_equal(out, want[asm][tflm])


@pytest.mark.parametrize("shift", SHIFTS)
def test_line_loop_equals_reference(m0, shift):
    """The depthwise line loop over every accumulator of the fast range, outputs 3 apart."""
    rng = np.random.default_rng(shift + 200)
    for mult in TFLM_MULTS + OTHER_MULTS:
        e = fast_range(mult, shift)
        if e == NONE:
            continue
        accs = [a for a in accumulators(mult, shift, rng) if -(1 << e) <= a < (1 << e)]
        t = [mbqm(a, mult, shift) for a in accs]
        acc = np.asarray(accs, np.int32)
        for zp, lo, hi in QUANTS[::3] if mult not in TFLM_MULTS else QUANTS:
            q = Struct("flex_s8_quant", (0, zp, lo, hi))
            line = np.zeros(LINE_WORDS, np.int32)
            m0.call("flex__m0_line_rq_init", [line, mult, shift, q, 3])
            out = np.zeros(3 * acc.size, np.int8)
            m0.call("flex__m0_requant_line", [acc, acc.size, out, line])
            want = requant(t, zp, lo, hi)
            assert np.array_equal(out[::3], want), (mult, np.flatnonzero(out[::3] != want)[:8])
            assert not out.reshape(-1, 3)[:, 1:].any()  # the bytes between are not written
