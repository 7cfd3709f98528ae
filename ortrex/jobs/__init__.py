"""The one job layer (a leaf: it imports nothing else of ortrex, and every layer may use it).

A job is a deterministic list of tasks with content-derived keys, a pure worker function and
an idempotent batch writer; ``drive`` runs any job on any executor (this process, local worker
processes, Ray), in task order, with early stop, per-task failures and retries, and a clean
stop on Ctrl-C. Every job's writer is a ``BatchWriter`` (rows by table, one transaction per flush,
a conflict policy per table) and ``run_job`` runs it (executor lifetime, run start and finish).
"""

from ortrex.jobs.batch import IGNORE, REPLACE, BatchWriter, Policy, executor_for, run_job
from ortrex.jobs.driver import DriveStats, Interrupted, JobWriter, drive, in_order
from ortrex.jobs.executors import (
    EXECUTORS,
    MAX_WORKERS,
    Executor,
    ExecutorError,
    InlineExecutor,
    JobError,
    LocalExecutor,
    make_executor,
)
from ortrex.jobs.failures import Guarded, TaskFailure
from ortrex.jobs.protocol import unknown_names

__all__ = ["EXECUTORS", "IGNORE", "MAX_WORKERS", "REPLACE", "BatchWriter", "DriveStats", "Executor",
           "ExecutorError", "Guarded", "InlineExecutor", "Interrupted", "JobError", "JobWriter",
           "LocalExecutor", "Policy", "TaskFailure", "drive", "executor_for", "in_order",
           "make_executor", "run_job", "unknown_names"]
