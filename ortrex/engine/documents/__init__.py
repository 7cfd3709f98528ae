"""The documents wing: the render job (render, check, store) and the verify-documents job."""
