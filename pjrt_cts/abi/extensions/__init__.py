"""ctypes declarations of the PJRT extension structs, one module per extension type."""
