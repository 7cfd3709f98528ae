"""served."""
