"""Functions whose annotations are strings (PEP 563), resolved by tooluse."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from tooluse import RunContextWrapper

if TYPE_CHECKING:
    from decimal import Decimal  # not importable at run time: tooluse cannot resolve it


def forecast(ctx: RunContextWrapper[Any], city: str, when: datetime.date) -> str:
    """Forecast the weather."""
    return f"{ctx.context}{city}{when}"


def broken(amount: Decimal) -> str:
    """An annotation that only a type checker can see."""
    return str(amount)


class Handler:
    """A callable object whose annotations name a class nested in its class body."""

    class Order(BaseModel):
        """One order."""

        item: str

    async def __call__(self, order: Order) -> str:
        return order.item

    def first(self, orders: list[Order]) -> str:
        """The first order's item."""
        return orders[0].item


class SubHandler(Handler):
    """Inherits `__call__`: its annotations still read in `Handler`'s body."""
