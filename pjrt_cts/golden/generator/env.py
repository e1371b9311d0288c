"""Imports JAX configured for generation: CPU only, 4 host devices, 64-bit types, GSPMD sharding.

Must be imported before anything else imports jax in the process (XLA_FLAGS is read once).
"""
from __future__ import annotations

import os

NUM_HOST_DEVICES = 4

if "jax" not in __import__("sys").modules:
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={NUM_HOST_DEVICES}".strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # GSPMD deprecation notices

import warnings  # noqa: E402 - imported after env has configured JAX

import jax  # noqa: E402 - imported after env has configured JAX
import numpy  # noqa: E402 - imported after env has configured JAX

# convert.c64_to_f32 and friends discard the imaginary part on purpose (JAX emits stablehlo.real).
warnings.filterwarnings("ignore", category=numpy.exceptions.ComplexWarning)

jax.config.update("jax_enable_x64", True)
# GSPMD (mhlo.sharding) instead of Shardy: older plugins cannot read the sdy dialect and portable
# artifacts cannot carry it.
jax.config.update("jax_use_shardy_partitioner", False)

if jax.device_count() < NUM_HOST_DEVICES:
    raise RuntimeError(
        f"the golden generator needs {NUM_HOST_DEVICES} CPU devices but JAX has {jax.device_count()}: "
        "jax was imported before pjrt_cts.golden.generator.env set XLA_FLAGS; run the generator in a fresh process"
    )
