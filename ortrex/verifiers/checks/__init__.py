"""The one document-check list: per-document and corpus-level checks, with their verdict rows."""
