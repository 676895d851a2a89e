// The console's one way of showing dollars (spend, budgets, prices): under a cent is never "$0.00".
import { describe, expect, it } from "vitest";
import { dollars } from "../../console/src/components/money";

describe("dollars", () => {
  it("shows cents from a cent up, and nothing as $0.00", () => {
    expect([0, 0.01, 5, 12.5, 1000000].map(dollars)).toEqual(["$0.00", "$0.01", "$5.00", "$12.50", "$1000000.00"]);
  });

  it("shows an amount under a cent with its own two digits, down to the micro-dollar spend is kept in", () => {
    expect([0.0042, 0.005, 0.00012345, 0.000001, 0.00999].map(dollars)).toEqual(["$0.0042", "$0.005", "$0.00012", "$0.000001", "$0.01"]);
    expect(dollars(0.0000004)).toBe("< $0.000001");
  });
});
