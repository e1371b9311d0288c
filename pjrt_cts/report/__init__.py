"""results.json consumers: the HTML report, run comparison (diff), the CI gate and the badge."""
