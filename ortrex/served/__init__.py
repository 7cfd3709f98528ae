"""What every served-model job shares: the OpenAI-compatible client, prompts, completion scoring."""
