"""The clean flywheel: served models answer; answers are scored, diagnosed, repaired, reviewed."""
