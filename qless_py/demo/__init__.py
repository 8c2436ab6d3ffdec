"""The demo pipeline: parse the standard library with ``ast``, merge per package, report.

``jobs`` holds the job classes the workers run; ``driver`` puts the jobs, runs a forking
worker, shows progress and prints the report and the wait/run histograms.
"""
