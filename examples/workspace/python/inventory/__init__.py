from .stock import Item, Stock

__all__ = ["Item", "Stock"]
