"""Reports people read: the corpus report (HTML, plots), operator review, corpus quality."""
