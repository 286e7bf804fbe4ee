"""The self-contained HTML report, built from result files only (no training stack imported)."""

from biocompact.report.render import build_report

__all__ = ["build_report"]
