package main

import "fmt"

func main() {
	stock := NewStock()
	stock.Add(Item{SKU: "A1", Name: "lamp", PriceCents: 2500}, 3)
	if err := stock.Remove("A1", 1); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println("value", stock.ValueCents())
}
