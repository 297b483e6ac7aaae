"""Stock levels for a small shop."""
from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    name: str
    price_cents: int


@dataclass
class Stock:
    items: dict[str, Item] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, item: Item, count: int = 1) -> None:
        self.items[item.sku] = item
        self.counts[item.sku] = self.counts.get(item.sku, 0) + count

    def remove(self, sku: str, count: int = 1) -> None:
        if self.counts.get(sku, 0) < count:
            raise ValueError(f"only {self.counts.get(sku, 0)} of {sku} left")
        self.counts[sku] -= count

    def value_cents(self) -> int:
        return sum(self.items[sku].price_cents * n for sku, n in self.counts.items())


if __name__ == "__main__":
    stock = Stock()
    stock.add(Item("A1", "lamp", 2500), 3)
    stock.remove("A1")
    print("value", stock.value_cents())
