"""`loadertune doctor`: independent probes of what will break a DataLoader here, with fixes."""

from loadertune.doctor.context import DoctorContext, parse_target
from loadertune.doctor.findings import Finding, Report
from loadertune.doctor.runner import PROBES, run_doctor

__all__ = ["PROBES", "DoctorContext", "Finding", "Report", "parse_target", "run_doctor"]
