"""The judgment: what a run's records mean (issue 30).

One package for the things that decide: the outcome vocabulary and test ids (`outcomes`), what each level
requires (`levels`) and its frozen mandatory lists (`contract`, data in `mustpass/`), the named defects and the
diagnosis that attributes each finding to one (`defects`), the one verdict function (`verdict`) and the results
files that carry all of it (`results`; the record types themselves are pjrt_cts.schema's).

This module imports nothing: its members sit on different floors of docs/ARCHITECTURE.md (`outcomes` at the
bottom, `results` above `verdict`), and a package-level import would tie them together.
"""
