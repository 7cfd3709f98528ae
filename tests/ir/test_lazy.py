"""The lock-free cached property: computed once, stored on the instance, frozen classes too."""

from __future__ import annotations

from dataclasses import dataclass

from ortrex.ir.lazy import lazy


@dataclass(frozen=True)
class Box:
    x: int
    calls: list[int]

    @lazy
    def doubled(self) -> int:
        """Twice x."""
        self.calls.append(self.x)
        return 2 * self.x


def test_computed_once_and_stored_on_the_instance() -> None:
    b, other = Box(3, []), Box(5, [])
    assert b.doubled == 6 and b.doubled == 6 and b.calls == [3]
    assert b.__dict__["doubled"] == 6 and "doubled" not in other.__dict__
    assert other.doubled == 10 and other.calls == [5]
    assert isinstance(Box.doubled, lazy) and Box.doubled.__doc__ == "Twice x."
