"""The golden corpus: StableHLO programs built from JAX on CPU with inputs and expected outputs.

Reading the corpus and comparing results needs only numpy and ml_dtypes; the generator
(`pjrt_cts.golden.generator`) is the only module that imports JAX.
"""
from pjrt_cts.golden.compare import Mismatch, compare
from pjrt_cts.golden.corpus import CorpusError, GoldenCase, Manifest, load_manifest
from pjrt_cts.golden.tolerance import EXACT, Tolerance, tolerance_for

__all__ = [
    "EXACT", "CorpusError", "GoldenCase", "Manifest", "Mismatch", "Tolerance", "compare", "load_manifest",
    "tolerance_for",
]
