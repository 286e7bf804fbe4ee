"""Report stage: the per-task aggregation over seeds, retention, the paired-bootstrap
comparisons and the self-contained HTML report (``render.build_report``), built from result
files only (no training stack imported)."""
