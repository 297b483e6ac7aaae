package main

import "fmt"

type Item struct {
	SKU        string
	Name       string
	PriceCents int
}

type Stock struct {
	items  map[string]Item
	counts map[string]int
}

func NewStock() *Stock {
	return &Stock{items: map[string]Item{}, counts: map[string]int{}}
}

func (s *Stock) Add(item Item, count int) {
	s.items[item.SKU] = item
	s.counts[item.SKU] += count
}

func (s *Stock) Remove(sku string, count int) error {
	if s.counts[sku] < count {
		return fmt.Errorf("only %d of %s left", s.counts[sku], sku)
	}
	s.counts[sku] -= count
	return nil
}

func (s *Stock) ValueCents() int {
	total := 0
	for sku, n := range s.counts {
		total += s.items[sku].PriceCents * n
	}
	return total
}
