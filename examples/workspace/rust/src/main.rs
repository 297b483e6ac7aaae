use std::collections::HashMap;

struct Item {
    name: String,
    price_cents: u64,
}

#[derive(Default)]
struct Stock {
    items: HashMap<String, Item>,
    counts: HashMap<String, u64>,
}

impl Stock {
    fn add(&mut self, sku: &str, item: Item, count: u64) {
        self.items.insert(sku.to_string(), item);
        *self.counts.entry(sku.to_string()).or_insert(0) += count;
    }

    fn remove(&mut self, sku: &str, count: u64) -> Result<(), String> {
        let have = self.counts.get(sku).copied().unwrap_or(0);
        if have < count {
            return Err(format!("only {have} of {sku} left"));
        }
        self.counts.insert(sku.to_string(), have - count);
        Ok(())
    }

    fn value_cents(&self) -> u64 {
        self.counts.iter().map(|(sku, n)| self.items[sku].price_cents * n).sum()
    }
}

fn main() {
    let mut stock = Stock::default();
    stock.add("A1", Item { name: "lamp".into(), price_cents: 2500 }, 3);
    stock.remove("A1", 1).unwrap();
    println!("value {} ({})", stock.value_cents(), stock.items["A1"].name);
}
