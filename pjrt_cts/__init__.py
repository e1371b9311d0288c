"""pjrt-cts: a black-box conformance test suite for PJRT plugins."""

__version__ = "0.1.0"
