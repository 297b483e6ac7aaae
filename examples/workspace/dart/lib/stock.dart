class Item {
  final String sku;
  final String name;
  final int priceCents;
  const Item(this.sku, this.name, this.priceCents);
}

class Ticker {
  void dispose() {}
}

class Stock {
  final Map<String, Item> _items = {};
  final Map<String, int> _counts = {};
  Ticker? ticker = Ticker();

  void add(Item item, [int count = 1]) {
    _items[item.sku] = item;
    _counts[item.sku] = (_counts[item.sku] ?? 0) + count;
  }

  void remove(String sku, [int count = 1]) {
    final have = _counts[sku] ?? 0;
    if (have < count) throw StateError('only $have of $sku left');
    _counts[sku] = have - count;
  }

  int valueCents() {
    var total = 0;
    _counts.forEach((sku, n) => total += (_items[sku]?.priceCents ?? 0) * n);
    return total;
  }

  void close() {
    if (ticker != null) ticker!.dispose();
  }
}

void main() {
  final stock = Stock()..add(const Item('A1', 'lamp', 2500), 3);
  stock.remove('A1');
  print('value ${stock.valueCents()}');
  stock.close();
}
