"""Small-scale trainer and MindSpeed-LLM launch generation."""
