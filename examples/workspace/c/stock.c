#include <stdio.h>
#include <string.h>

#define MAX_ITEMS 16

struct item {
    char sku[8];
    int price_cents;
    int count;
};

static struct item stock[MAX_ITEMS];
static int n_items = 0;

static void add(const char *sku, int price_cents, int count) {
    for (int i = 0; i < n_items; i++) {
        if (strcmp(stock[i].sku, sku) == 0) {
            stock[i].count += count;
            return;
        }
    }
    strncpy(stock[n_items].sku, sku, sizeof stock[n_items].sku - 1);
    stock[n_items].price_cents = price_cents;
    stock[n_items].count = count;
    n_items++;
}

static int value_cents(void) {
    int total = 0;
    for (int i = 0; i < n_items; i++) total += stock[i].price_cents * stock[i].count;
    return total;
}

int main(void) {
    add("A1", 2500, 3);
    add("A1", 2500, -1);
    printf("value %d\n", value_cents());
    return 0;
}
