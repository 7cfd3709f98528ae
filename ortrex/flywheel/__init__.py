"""flywheel."""
