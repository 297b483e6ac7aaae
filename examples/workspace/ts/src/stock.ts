export interface Item {
  sku: string;
  name: string;
  priceCents: number;
}

export class Stock {
  private readonly items = new Map<string, Item>();
  private readonly counts = new Map<string, number>();

  add(item: Item, count = 1): void {
    this.items.set(item.sku, item);
    this.counts.set(item.sku, (this.counts.get(item.sku) ?? 0) + count);
  }

  remove(sku: string, count = 1): void {
    const have = this.counts.get(sku) ?? 0;
    if (have < count) throw new Error(`only ${have} of ${sku} left`);
    this.counts.set(sku, have - count);
  }

  valueCents(): number {
    let total = 0;
    for (const [sku, n] of this.counts) total += (this.items.get(sku)?.priceCents ?? 0) * n;
    return total;
  }
}
