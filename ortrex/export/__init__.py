"""Export of accepted documents as MindSpeed-LLM / Megatron indexed datasets."""
