import { Stock } from "./stock.js";

const stock = new Stock();
stock.add({ sku: "A1", name: "lamp", priceCents: 2500 }, 3);
stock.remove("A1");
console.log("value", stock.valueCents());
