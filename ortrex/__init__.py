"""ortrex: a data-centric corpus engine for Operations Research language models."""

__version__ = "0.1.0"
