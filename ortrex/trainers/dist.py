"""Processes: one, or N started by ``torchrun`` (gloo on CPU, NCCL on GPUs), and FSDP2
sharding of the model over them."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as tdist


@dataclass
class Dist:
    """This process's place in the job."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0
    device: torch.device = torch.device("cpu")  # noqa: RUF009 (immutable in practice)

    @property
    def main(self) -> bool:
        """Rank 0: the one that prints, logs, plots and writes the store."""
        return self.rank == 0

    def barrier(self) -> None:
        """Wait for every rank (no-op on one process)."""
        if self.world > 1:
            tdist.barrier()

    def sum(self, t: torch.Tensor) -> torch.Tensor:
        """``t`` summed over the ranks (in place; returned)."""
        if self.world > 1:
            tdist.all_reduce(t, op=tdist.ReduceOp.SUM)
        return t

    def all_ok(self, ok: bool) -> bool:
        """Whether ``ok`` holds on every rank (so all ranks stop together)."""
        if self.world == 1:
            return ok
        t = torch.tensor([0 if ok else 1], device=self.device)
        tdist.all_reduce(t, op=tdist.ReduceOp.SUM)
        return int(t.item()) == 0


def setup() -> Dist:
    """Join the process group ``torchrun`` describes (``WORLD_SIZE`` > 1), once."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    cuda = torch.cuda.is_available()
    device = torch.device("cuda", local) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    if world > 1 and not tdist.is_initialized():
        tdist.init_process_group("nccl" if cuda else "gloo", device_id=device if cuda else None)
    return Dist(rank, world, local, device)


def teardown() -> None:
    """Leave the process group."""
    if tdist.is_initialized():
        tdist.destroy_process_group()


def shard(model: torch.nn.Module, d: Dist) -> torch.nn.Module:
    """FSDP2: every transformer block, then the whole model, sharded over the ranks (one
    process: the model as it is)."""
    if d.world == 1:
        return model.to(d.device)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh(d.device.type, (d.world,))
    blocks = set(getattr(model, "_no_split_modules", None) or [])
    model.to(d.device)
    for mod in model.modules():
        if type(mod).__name__ in blocks:
            fully_shard(mod, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model


def set_sync(model: torch.nn.Module, sync: bool) -> None:
    """Reduce gradients on this backward (False while accumulating micro-batches)."""
    fn = getattr(model, "set_requires_gradient_sync", None)
    if fn is not None:
        fn(sync)
