"""Doctor probes: each a function of a `DoctorContext` returning findings."""
