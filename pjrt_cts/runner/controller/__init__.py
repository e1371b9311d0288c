"""The `pjrt-cts run` process: the pytest session that drives xdist's workers (it never loads the plugin), folds their
reports into records, confirms findings and writes the outputs. Its pytest hooks: recorder.Controller (folds the
reports) and scheduling (xdist's scheduler)."""
