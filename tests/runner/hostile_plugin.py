"""A hostile plugin for the runner's tests: the bundled CPU plugin behind a shim that kills one PJRT function.

The shim's GetPjrtApi loads the real plugin (HOSTILE_REAL_PLUGIN), copies its PJRT_Api table and replaces the
slot HOSTILE_SLOT with a function that prints one line on stderr and then aborts (HOSTILE_MODE=abort),
segfaults (segv) or never returns (hang). Everything else is the real plugin, so tests that avoid that
function behave exactly as on the CPU plugin. Built with the system C compiler once per test session.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from pjrt_cts.abi.slots import SLOTS_BY_NAME
from pjrt_cts.runtime import default_plugin_path

SOURCE = r"""
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS_OFFSET 40 /* PJRT_Api: struct_size, extension_start, pjrt_api_version (24 bytes) */

static unsigned char table[8192];
static int ready;

static void* hostile(void* args) {
  const char* mode = getenv("HOSTILE_MODE");
  fprintf(stderr, "hostile plugin: %s in slot %s\n", mode ? mode : "?", getenv("HOSTILE_SLOT"));
  fflush(stderr);
  if (mode && strcmp(mode, "segv") == 0) raise(SIGSEGV);
  if (mode && strcmp(mode, "hang") == 0) for (;;) pause();
  abort();
  return args;
}

void* GetPjrtApi(void) {
  if (ready) return table;
  const char* real = getenv("HOSTILE_REAL_PLUGIN");
  void* library = real ? dlopen(real, RTLD_NOW | RTLD_LOCAL) : NULL;
  void* (*get_api)(void) = library ? (void* (*)(void))dlsym(library, "GetPjrtApi") : NULL;
  void* api = get_api ? get_api() : NULL;
  if (!api) return NULL;
  size_t size = *(size_t*)api;
  if (size > sizeof(table)) return NULL;
  memcpy(table, api, size);
  const char* slot = getenv("HOSTILE_SLOT");
  if (slot) ((void**)(table + SLOTS_OFFSET))[atoi(slot)] = (void*)hostile;
  ready = 1;
  return table;
}
"""


def build(directory: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise FileNotFoundError("no C compiler (cc/gcc) to build the hostile plugin shim")
    source = directory / "hostile_plugin.c"
    library = directory / "libhostile_pjrt_plugin.so"
    source.write_text(SOURCE, encoding="utf-8")
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(library), str(source), "-ldl"], check=True,
                   capture_output=True, text=True)
    return library


def environment(function: str, mode: str) -> dict[str, str]:
    """Environment variables that make the shim `mode` (abort | segv | hang) in PJRT_`function`."""
    return {"HOSTILE_REAL_PLUGIN": str(default_plugin_path()), "HOSTILE_SLOT": str(SLOTS_BY_NAME[function].index),
            "HOSTILE_MODE": mode}
