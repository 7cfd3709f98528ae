"""The intake wing: model files (`import-lp`) and problem/program seeds (`import-seeds`)."""
