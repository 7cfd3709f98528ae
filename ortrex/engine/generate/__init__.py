"""The generation wing: the pipeline (sample, ground, solve, check), generate and mutate jobs."""
