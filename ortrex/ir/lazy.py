"""A cached property without a lock, for objects made and read by one thread at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class lazy(Generic[T]):
    """``functools.cached_property`` without its lock: before Python 3.12 every first access
    takes an RLock, which costs more than the small models' computations checked per pair.
    The value is stored in the instance's ``__dict__`` (frozen dataclasses too), so later
    reads never reach this descriptor."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, cls: type | None = None) -> lazy[T]: ...

    @overload
    def __get__(self, obj: object, cls: type | None = None) -> T: ...

    def __get__(self, obj: object | None, cls: type | None = None) -> T | lazy[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value
