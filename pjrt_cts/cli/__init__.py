"""Command-line interface: `pjrt-cts <command>`; each command lives in its own module."""
